import { describe, expect, it } from "vitest";
import type { Found } from "../x402/discovery-client";
import type { ServiceListing } from "../x402/discovery-listing";
import { handleSuggestionsRequest } from "./handle-suggestions-request";
import { listingAnswers } from "./probe-listing";
import { createSuggestionsSource } from "./suggestions-source";

const weather: ServiceListing = {
  name: "Weather Now",
  resource: "https://weather.example/now",
  amount: 10_000n,
  price: "0.01",
  tags: [],
  input: { method: "GET", query: [{ name: "city", required: true, example: "Tokyo" }], path: [] },
};

function fakeDiscovery(answer: () => Promise<ServiceListing[]>) {
  let calls = 0;
  return {
    get calls() {
      return calls;
    },
    find: (_query?: string, signal?: AbortSignal) => {
      calls += 1;
      return new Promise<Found>((resolve, reject) => {
        signal?.addEventListener("abort", () => reject(signal.reason as Error));
        answer().then((listings) => resolve({ listings, dropped: {} }), reject);
      });
    },
  };
}

describe("createSuggestionsSource", () => {
  it("reads discovery once per TTL, concurrent requests sharing one read", async () => {
    let now = 0;
    const discovery = fakeDiscovery(async () => [weather]);
    const source = createSuggestionsSource({ discovery, ttlMs: 60_000, now: () => now });
    const [first, second] = await Promise.all([source.get(), source.get()]);
    expect(first).toEqual([{ text: "Buy Weather Now for Tokyo", service: "Weather Now", price: "0.01" }]);
    expect(second).toBe(first);
    now = 59_999;
    await source.get();
    expect(discovery.calls).toBe(1);
    now = 60_000;
    await source.get();
    expect(discovery.calls).toBe(2);
  });

  it("gives no suggestions when discovery fails or is slow, and asks again after the shorter failure TTL", async () => {
    let now = 0;
    const logs: unknown[] = [];
    const failing = fakeDiscovery(() => Promise.reject(new Error("discovery answered HTTP 503")));
    const source = createSuggestionsSource({ discovery: failing, failureTtlMs: 10_000, now: () => now, log: (entry) => logs.push(entry) });
    expect(await source.get()).toEqual([]);
    expect(await source.get()).toEqual([]);
    expect(failing.calls).toBe(1);
    now = 10_000;
    await source.get();
    expect(failing.calls).toBe(2);
    expect(logs[0]).toMatchObject({ event: "suggestions-unavailable" });

    const slow = fakeDiscovery(() => new Promise(() => undefined));
    const started = Date.now();
    expect(await createSuggestionsSource({ now: Date.now, discovery: slow, timeoutMs: 50, log: () => undefined }).get()).toEqual([]);
    expect(Date.now() - started).toBeLessThan(2_000);
  });
});

describe("handleSuggestionsRequest", () => {
  it("answers the suggestions, cacheable for a minute", async () => {
    const response = await handleSuggestionsRequest(() => ({
      get: async () => [{ text: "Buy Weather Now for Tokyo", service: "Weather Now", price: "0.01" }],
    }));
    expect(response.status).toBe(200);
    expect(response.headers.get("cache-control")).toBe("public, max-age=60");
    expect(await response.json()).toEqual({ suggestions: [{ text: "Buy Weather Now for Tokyo", service: "Weather Now", price: "0.01" }] });
  });

  it("answers an empty list, not cached, when the deployment cannot read discovery at all", async () => {
    const response = await handleSuggestionsRequest(() => {
      throw new Error("QUOTE_SECRET is not set");
    });
    expect(response.status).toBe(200);
    expect(response.headers.get("cache-control")).toBe("no-store");
    expect(await response.json()).toEqual({ suggestions: [] });
  });

  it("suggests only listings whose service answers, asking a few more candidates than it shows", async () => {
    const listing = (host: string, amount: bigint): ServiceListing => ({
      ...weather,
      name: `Service ${host}`,
      resource: `https://${host}.example/now`,
      amount,
      price: "0",
    });
    const listings = ["a", "b", "c", "d", "e", "f", "g"].map((host, index) => listing(host, BigInt(index + 1)));
    const asked: string[] = [];
    const source = createSuggestionsSource({
      now: Date.now,
      discovery: fakeDiscovery(async () => listings),
      answers: async (candidate) => {
        asked.push(candidate.resource);
        if (candidate.resource.includes("//c.")) throw new Error("connection refused");
        return !candidate.resource.includes("//a.");
      },
    });
    const suggestions = await source.get();
    expect(suggestions.map((suggestion) => suggestion.service)).toEqual(["Service b", "Service d", "Service e", "Service f", "Service g"]);
    expect(asked).toHaveLength(7);
  });
});

describe("listingAnswers", () => {
  const answering = (status: number) => async (url: string, init: RequestInit) => {
    calls.push({ url, method: init.method });
    return new Response("{}", { status });
  };
  let calls: { url: string; method: string | undefined }[] = [];

  it("counts a 402 or a success as answering, asked with the listing's example call", async () => {
    calls = [];
    expect(await listingAnswers(answering(402), weather)).toBe(true);
    expect(await listingAnswers(answering(200), weather)).toBe(true);
    expect(calls[0]).toEqual({ url: "https://weather.example/now?city=Tokyo", method: "GET" });
  });

  it("counts an error status, a refused connection or no answer in time as not answering", async () => {
    expect(await listingAnswers(answering(404), weather)).toBe(false);
    expect(await listingAnswers(answering(503), weather)).toBe(false);
    expect(await listingAnswers(() => Promise.reject(new TypeError("fetch failed")), weather)).toBe(false);
    const hanging = (_url: string, init: RequestInit) =>
      new Promise<Response>((_resolve, reject) => init.signal?.addEventListener("abort", () => reject(new Error("aborted"))));
    expect(await listingAnswers(hanging, weather, 20)).toBe(false);
  });
});
