import { describe, expect, it } from "vitest";
import type { ServiceListing } from "../x402/discovery-listing";
import type { InputContract } from "../x402/input-contract";
import { buildSuggestions, requestSentence } from "./build-suggestions";

function listing(resource: string, name: string, amount: bigint, input?: Partial<InputContract>): ServiceListing {
  return {
    name,
    resource,
    amount,
    price: String(Number(amount) / 1e6),
    tags: [],
    ...(input ? { input: { method: "GET", query: [], path: [], ...input } } : {}),
  };
}

const city = { name: "city", required: true, example: "Tokyo" };

describe("requestSentence", () => {
  it("names one example value after the service", () => {
    expect(requestSentence(listing("https://a.example/w", "Weather Now", 10_000n, { query: [city] }))).toBe("Buy Weather Now for Tokyo");
  });

  it("names the inputs when there are several, or when the value is a number", () => {
    const days = { name: "days", required: true, example: "2" };
    expect(requestSentence(listing("https://a.example/g", "Guide: Paris food", 1_000n, { query: [days] }))).toBe("Buy Guide Paris food with days 2");
    const text = { name: "text", required: true, example: '"good morning"' };
    const to = { name: "to", required: true, example: "pt" };
    expect(
      requestSentence(listing("https://a.example/t", "Translate", 1_000n, { method: "POST", query: [], body: { type: "json", fields: [text, to] } })),
    ).toBe("Buy Translate with text good morning and to pt");
  });

  it("puts required values first, at most two, each shortened", () => {
    const optional = { name: "lang", required: false, example: "en" };
    const long = { name: "q", required: true, example: "a very long question that goes on and on about many things" };
    const other = { name: "page", required: true, example: "3" };
    expect(requestSentence(listing("https://a.example/s", "Search", 1_000n, { query: [optional, long, other] }))).toBe(
      "Buy Search with q a very long question that goes on and… and page 3",
    );
  });

  it("is just the name for a service that takes nothing, and nothing when a required value has no example", () => {
    expect(requestSentence(listing("https://a.example/r", "Daily report", 1_000n))).toBe("Buy Daily report");
    expect(requestSentence(listing("https://a.example/r", "Lookup", 1_000n, { path: [{ name: "id", required: true }] }))).toBeUndefined();
    expect(requestSentence(listing("https://a.example/r", "(!)", 1_000n))).toBeUndefined();
  });
});

describe("buildSuggestions", () => {
  const catalogue = [
    listing("https://weather.example/now", "Weather Now", 10_000n, { query: [city] }),
    listing("https://weather.example/week", "Weather Week", 20_000n, { query: [city] }),
    listing("https://guides.example/paris/food", "Guide: Paris food", 2_000n, { query: [{ name: "days", required: true, example: "2" }] }),
    listing("https://guides.example/rome/food", "Guide: Rome food", 1_000n, { query: [{ name: "days", required: true, example: "2" }] }),
    listing("https://report.example/premium", "Premium report", 5_000_000n),
    listing("https://lookup.example/id", "Lookup", 3_000n, { path: [{ name: "id", required: true }] }),
    listing("https://lookup.example/name", "Lookup by name", 4_000n, { query: [{ name: "name", required: true, example: "Ada" }] }),
  ];

  it("gives one per origin, its first suggestible listing, cheapest first, with the price", () => {
    expect(buildSuggestions(catalogue, { maxAmount: 1_000_000n })).toEqual([
      { text: "Buy Guide Paris food with days 2", service: "Guide: Paris food", price: "0.002" },
      { text: "Buy Lookup by name for Ada", service: "Lookup by name", price: "0.004" },
      { text: "Buy Weather Now for Tokyo", service: "Weather Now", price: "0.01" },
    ]);
  });

  it("leaves out what costs more than the default limit, and stops at the maximum", () => {
    expect(buildSuggestions(catalogue).map((suggestion) => suggestion.service)).toContain("Premium report");
    expect(buildSuggestions(catalogue, { maxAmount: 1_000_000n }).map((suggestion) => suggestion.service)).not.toContain("Premium report");
    expect(buildSuggestions(catalogue, { max: 2 })).toHaveLength(2);
    const many = Array.from({ length: 20 }, (_, index) => listing(`https://s${index}.example/x`, `Service ${index}`, 1_000n));
    expect(buildSuggestions(many)).toHaveLength(5);
  });

  it("is empty for an empty list", () => {
    expect(buildSuggestions([])).toEqual([]);
  });
});
