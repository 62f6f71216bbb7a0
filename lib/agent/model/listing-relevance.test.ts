import { describe, expect, it } from "vitest";
import { CATALOGUE, COINS, EQUITIES, FORECAST, GUIDES, HEADLINES, KEYWORDS, keywordStuffer, RECORDS } from "../../../tests/support/demo-listings";
import { bestFit, rankListings } from "./listing-relevance";
import type { ServiceEntry } from "./listing-inputs";
import { readRequest } from "./request-reading";

function best(request: string, listings: readonly ServiceEntry[] = CATALOGUE): string | undefined {
  return bestFit(rankListings(readRequest(request), listings))?.entry.name;
}

describe("rankListings", () => {
  it.each([
    ["What's the weather in Oslo?", FORECAST],
    ["Is it raining in Rome tomorrow?", FORECAST],
    ["forecasts for bergen", FORECAST],
    ["How much is bitcoin right now?", COINS],
    ["What's the price of ETH?", COINS],
    // A coin the listing does not name, by its name in words.
    ["What does one cardano cost?", COINS],
    ["How are XYZ shares doing?", EQUITIES],
    ["Give me a stock quote for XYZ", EQUITIES],
    ["Extract the keywords from this: rivers freeze, lakes freeze", KEYWORDS],
    ["Any headlines about the Mars mission?", HEADLINES],
    ["Find record rec-9 in the archive", RECORDS],
    ["What are the best museums in Oslo for a 2 day trip?", GUIDES[0]],
    ["Food recommendations for Rome", GUIDES[3]],
  ])("%s", (request, expected) => {
    expect(best(request)).toBe(expected!.name);
  });

  it("lets nothing fit a request no listing does, even when a value (a city) matches a listing's name", () => {
    expect(best("Book me a flight to Oslo")).toBeUndefined();
    expect(best("Tell me a joke about cats")).toBeUndefined();
    expect(best("Order a large pepperoni pizza")).toBeUndefined();
    // Oslo's guides did match the city: they are the closest, yet they do not fit.
    const ranked = rankListings(readRequest("Book me a flight to Oslo"), CATALOGUE);
    expect(ranked[0]?.entry.name).toMatch(/Oslo/);
    expect(ranked[0]?.fits).toBe(false);
  });

  it("ranks a word most listings share below a rare one", () => {
    const ranked = rankListings(readRequest("Oslo museums"), GUIDES);
    expect(ranked[0]?.entry.name).toBe("City Guide: Oslo museums");
    expect(ranked[0]!.score).toBeGreaterThan(ranked[1]!.score);
    // "guide" is in every listing's name: it counts for less than "museums", in two of four.
    const [withGuide] = rankListings(readRequest("guide"), GUIDES);
    const [withMuseums] = rankListings(readRequest("museums"), GUIDES);
    expect(withGuide!.score).toBeLessThan(withMuseums!.score);
  });

  it("a listing stuffing its description with the request's words does not beat the listing that matches by name, tags and inputs", () => {
    const request = "What's the stock quote for XYZ? Stock ticker shares equities price";
    const stuffer = keywordStuffer("stock quote ticker shares equities price XYZ stock quote live");
    // First in discovery's order, so a tie would go its way.
    const ranked = rankListings(readRequest(request), [stuffer, EQUITIES, COINS]);
    expect(ranked[0]?.entry.name).toBe(EQUITIES.name);
    const stuffed = ranked.find((listing) => listing.entry === stuffer)!;
    // A description adds at most its cap however often it repeats the words.
    expect(stuffed.topicScore).toBeLessThanOrEqual(3);
    expect(stuffed.topicScore).toBeLessThan(ranked[0]!.topicScore);
  });

  it("a description adds at most its cap, however many of the request's words it stuffs in", () => {
    const words = "weather forecast rain museums food keywords headlines bitcoin";
    const [ranked] = rankListings(readRequest(words), [keywordStuffer(words)]);
    expect(ranked!.matched).toHaveLength(8);
    expect(ranked!.topicScore).toBe(3);
    // Against a listing that names one of the words, it loses.
    expect(best(words, [keywordStuffer(words), FORECAST])).toBe(FORECAST.name);
  });

  it("orders equals cheapest first, then in discovery's order", () => {
    const ranked = rankListings(readRequest("nothing in common"), CATALOGUE);
    const cheapestFirst = CATALOGUE.map((entry, index) => ({ price: Number(entry.price), index }))
      .sort((left, right) => left.price - right.price || left.index - right.index)
      .map((entry) => entry.index);
    expect(new Set(CATALOGUE.map((entry) => entry.price)).size).toBeGreaterThan(1);
    expect(ranked.map((listing) => listing.index)).toEqual(cheapestFirst);
  });

  it("chooses the cheaper of two equally fitting listings, wherever discovery lists it", () => {
    const pricier = { ...FORECAST, price: "0.05", resource: "https://first.example/forecast" };
    const cheaper = { ...FORECAST, price: "0.01", resource: "https://second.example/forecast" };
    const unpriced = { ...FORECAST, price: "free!", resource: "https://third.example/forecast" };
    for (const listings of [
      [pricier, cheaper],
      [cheaper, pricier],
      [unpriced, pricier, cheaper],
    ]) {
      const ranked = rankListings(readRequest("What's the weather in Oslo?"), listings);
      expect(ranked[0]?.score).toBe(ranked[1]?.score);
      expect(bestFit(ranked)?.entry).toBe(cheaper);
    }
  });
});
