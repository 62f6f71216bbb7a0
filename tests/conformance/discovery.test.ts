/**
 * A facilitator answering discovery exactly as the specification shows it, through our
 * discovery client: which services we list, at what price, and how each says it is called.
 */
import { describe, expect, it } from "vitest";
import { createDiscoveryClient } from "@/lib/x402/discovery-client";
import {
  bazaarResourcesList,
  identifierResourcesList,
  searchAnswer,
  searchAnswerPaged,
  unpayableResourcesList,
  v1ResourcesList,
  v2ResourcesList,
} from "./fixtures/discovery";
import { SPEC, specPayer } from "./fixtures/spec-fixture";

/** A facilitator answering the list and the search with the given bodies, recording what was asked. */
function facilitator(answers: { list?: unknown; search?: unknown[] }) {
  const requests: URL[] = [];
  let searches = 0;
  const fetch = async (input: string) => {
    const url = new URL(input);
    requests.push(url);
    if (url.pathname.endsWith("/discovery/resources") && answers.list) return Response.json(answers.list);
    if (url.pathname.endsWith("/discovery/search") && answers.search) return Response.json(answers.search[Math.min(searches++, answers.search.length - 1)]);
    return new Response("not found", { status: 404 });
  };
  const client = createDiscoveryClient({ now: Date.now, facilitatorUrl: "https://facilitator.example", network: specPayer, fetch });
  return { client, requests };
}

describe(`${v1ResourcesList.name} (${v1ResourcesList.source})`, () => {
  it("lists the v1 resource at its maxAmountRequired", async () => {
    const { client, requests } = facilitator({ list: v1ResourcesList.value });
    expect((await client.find()).listings).toEqual([
      {
        name: "/premium-data",
        resource: SPEC.resource,
        description: undefined,
        price: "0.01",
        amount: 10_000n,
        network: SPEC.v1Network,
        // The payee, read since discovery ranks by what each payee did with our money.
        payTo: SPEC.payTo,
        x402Version: 1,
        tags: [],
      },
    ]);
    expect(requests.map((url) => `${url.pathname}?${url.searchParams}`)).toEqual(["/discovery/resources?type=http&limit=100&offset=0"]);
  });
});

describe(`${v2ResourcesList.name} (${v2ResourcesList.source})`, () => {
  it("lists the spec's resource although it calls itself x402Version 1 with v2 terms (`amount`)", async () => {
    const { client } = facilitator({ list: v2ResourcesList.value });
    const listings = (await client.find()).listings;
    expect(listings).toHaveLength(1);
    expect(listings[0]).toMatchObject({ resource: SPEC.resource, amount: 10_000n, price: "0.01", network: SPEC.network, x402Version: 1 });
  });
});

describe(`${bazaarResourcesList.name} (${bazaarResourcesList.source})`, () => {
  it("lists every resource with its price and the input its service declared, cheapest first (a whole list is equally relevant)", async () => {
    const { client } = facilitator({ list: bazaarResourcesList.value });
    const listings = (await client.find()).listings;
    expect(listings.map((listing) => [listing.resource, listing.amount, listing.x402Version])).toEqual([
      ["https://api.example.com/users/123", 1_500n, 2],
      ["https://api.example.com/weather", 10_000n, 2],
      ["https://api.example.com/search", 20_000n, 2],
      ["https://api.example.com/forecast", 30_000n, 1],
    ]);
    const [user, weather, search, forecast] = listings;
    expect(weather?.input).toMatchObject({ method: "GET", query: [{ name: "city", type: "string", required: true, example: "San Francisco" }] });
    expect(search?.input).toMatchObject({ method: "POST", body: { type: "json", fields: [{ name: "query", example: "example" }] } });
    expect(user?.input).toMatchObject({ method: "GET", routeTemplate: "/users/:userId", path: [{ name: "userId", required: true, example: "123" }] });
    expect(forecast?.input).toMatchObject({
      method: "GET",
      query: [
        { name: "city", type: "string" },
        { name: "units", type: "string" },
      ],
    });
  });

  it("remembers each listing for a lookup by its resource URL, query string ignored", async () => {
    const { client } = facilitator({ list: bazaarResourcesList.value });
    await client.find();
    expect(client.lookup("https://api.example.com/weather?city=Paris")).toMatchObject({ amount: 10_000n, input: { method: "GET" } });
  });
});

describe(`${unpayableResourcesList.name} (${unpayableResourcesList.source})`, () => {
  it("leaves out what this deployment cannot pay and keeps the rest", async () => {
    const { client } = facilitator({ list: unpayableResourcesList.value });
    expect((await client.find()).listings.map((listing) => listing.resource)).toEqual([SPEC.resource]);
  });
});

describe(`${identifierResourcesList.name} (${identifierResourcesList.source})`, () => {
  it("leaves out a resource that is no URL (we can only call URLs) instead of failing the page", async () => {
    const { client } = facilitator({ list: identifierResourcesList.value });
    expect((await client.find()).listings.map((listing) => listing.resource)).toEqual([SPEC.resource]);
  });
});

describe(`${searchAnswer.name} (${searchAnswer.source})`, () => {
  it("reads `resources` in the facilitator's order, with their catalogue text and declared input", async () => {
    const { client, requests } = facilitator({ search: [searchAnswer.value] });
    const listings = (await client.find("weather")).listings;
    expect(requests.map((url) => `${url.pathname}?${url.searchParams}`)).toEqual(["/discovery/search?query=weather&type=http&limit=20"]);
    expect(listings.map((listing) => listing.resource)).toEqual(["https://api.example.com/weather", "https://api.example.com/search"]);
    expect(listings[0]).toMatchObject({
      name: "Weather",
      tags: ["weather", "forecast"],
      description: "Weather data endpoint",
      amount: 10_000n,
      input: { method: "GET" },
    });
    expect(listings[1]).toMatchObject({ name: "/search", amount: 20_000n, input: { method: "POST" } });
  });
});

describe(`${searchAnswerPaged.name} (${searchAnswerPaged.source})`, () => {
  it("follows the cursor to the next page and stops where no pagination follows", async () => {
    const { client, requests } = facilitator({ search: searchAnswerPaged.value });
    const listings = (await client.find("weather")).listings;
    expect(requests.map((url) => url.searchParams.get("cursor"))).toEqual([null, "page-2"]);
    expect(listings.map((listing) => listing.resource)).toEqual(["https://api.example.com/weather", "https://api.example.com/search"]);
  });
});

describe("a facilitator with only the spec's list endpoint (specs/x402-specification-v2.md §8 defines no search)", () => {
  it("answers a search from the list, matched by keyword", async () => {
    const { client, requests } = facilitator({ list: bazaarResourcesList.value });
    const listings = (await client.find("users")).listings;
    expect(requests.map((url) => url.pathname)).toEqual(["/discovery/search", "/discovery/resources"]);
    expect(listings.map((listing) => listing.resource)).toEqual(["https://api.example.com/users/123"]);
  });
});
