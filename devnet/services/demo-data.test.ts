import { describe, expect, it } from "vitest";
import { exchangeRates, newsHeadlines, premiumReport, seededFraction, spotPrice, weatherReport } from "./demo-data";
import { exampleInput, type DemoService } from "./define-service";
import { matchRoute } from "./paid-request-handler";
import { ALL_SERVICES, CITY_GUIDES, DEMO_SERVICES, findDemoService } from "./service-catalog";

describe("demo data", () => {
  it("is deterministic: the same question gets the same answer", () => {
    expect(weatherReport("Lisbon")).toEqual(weatherReport("Lisbon"));
    expect(spotPrice("eth")).toEqual(spotPrice("ETH"));
    expect(newsHeadlines("energy")).toEqual(newsHeadlines("energy"));
    expect(weatherReport("Lisbon")).not.toEqual(weatherReport("Oslo"));
  });

  it("labels every answer as synthetic demo data", () => {
    for (const answer of [weatherReport("Oslo"), spotPrice("BTC"), newsHeadlines("ai"), premiumReport("ai"), exchangeRates("EUR")]) {
      expect(answer.demo).toBe(true);
      expect(answer.note).toMatch(/synthetic demo data/i);
    }
  });

  it("keeps stablecoins at their peg and draws fractions in [0, 1)", () => {
    expect(spotPrice("USDC").price).toBe("1.00");
    for (let index = 0; index < 50; index++) {
      const fraction = seededFraction("seed", index);
      expect(fraction).toBeGreaterThanOrEqual(0);
      expect(fraction).toBeLessThan(1);
    }
  });
});

describe("demo service catalog", () => {
  it("has unique names, routes and prices, at most five tags each, and one each of: v1, foreign-first, foreign-only and sign-in-with-x; two offline, two POST, two route templates, three metered (one dishonest), and one listing of each failure", () => {
    const unique = (values: unknown[]) => new Set(values).size === values.length;
    expect(unique(ALL_SERVICES.map((service) => service.name))).toBe(true);
    expect(unique(ALL_SERVICES.map((service) => service.path))).toBe(true);
    expect(unique(DEMO_SERVICES.map((service) => service.price))).toBe(true);
    expect(ALL_SERVICES.every((service) => service.tags.length <= 5)).toBe(true);
    const count = (predicate: (service: DemoService) => boolean) => DEMO_SERVICES.filter(predicate).length;
    expect(count((service) => service.x402Version === 1)).toBe(1);
    expect(count((service) => service.alwaysOffline)).toBe(2);
    expect(count((service) => service.method === "POST" && service.inputIn === "json-body")).toBe(2);
    expect(count((service) => service.metering !== undefined)).toBe(3);
    expect(count((service) => service.metering?.settles === "ceiling")).toBe(1);
    expect(count((service) => service.inputIn === "path" && service.path.includes("/:"))).toBe(2);
    expect(count((service) => service.signInWithX === true)).toBe(1);
    expect(count((service) => service.offers === "foreign-first")).toBe(1);
    expect(count((service) => service.offers === "foreign-only")).toBe(1);
    for (const failure of ["asks-more-than-listed", "asks-another-network", "error-before-payment", "fails-after-payment"] as const)
      expect(count((service) => service.failure === failure)).toBe(1);
    // More than one page of the discovery list (at most 100 per page), all on one shared host.
    expect(ALL_SERVICES.length).toBeGreaterThan(100);
    expect(new Set(CITY_GUIDES.map((service) => service.hostGroup)).size).toBe(1);
  });

  it("checks inputs before payment and answers the example inputs", async () => {
    for (const service of ALL_SERVICES) {
      const example = exampleInput(service);
      expect(service.checkInput(example), service.name).toBeUndefined();
      expect(service.checkInput({}), service.name).toMatch(/required/);
      const answer = await service.answer(example, { slowDelayMs: 0, signal: new AbortController().signal });
      expect(answer.ok, service.name).toBe(true);
    }
  });

  it("refuses inputs of the wrong kind with the field's own words", () => {
    const keywords = findDemoService("keywords")!;
    expect(keywords.checkInput({ text: "solar power", limit: 99 })).toBe("limit is at most 10");
    expect(keywords.checkInput({ text: 42 })).toMatch(/text/);
    expect(findDemoService("stock-quote")!.checkInput({ ticker: "AC/ME" })).toBe("ticker is letters only");
    expect(findDemoService("guide-lisbon-food")!.checkInput({ days: "9" })).toBe("days is at most 7");
  });

  it("stops the slow service's wait when the caller leaves", async () => {
    const slow = DEMO_SERVICES.find((service) => service.name === "slow-analysis");
    const controller = new AbortController();
    const answer = slow?.answer({ topic: "x" }, { slowDelayMs: 60_000, signal: controller.signal });
    controller.abort(new Error("gone"));
    await expect(answer).rejects.toThrow("gone");
  });
});

describe("matchRoute", () => {
  it("matches plain paths and route templates, decoding one segment per parameter", () => {
    expect(matchRoute("/weather", "/weather/")).toEqual({});
    expect(matchRoute("/weather", "/weather/x")).toBeUndefined();
    expect(matchRoute("/stocks/:ticker/quote", "/stocks/AC%20ME/quote")).toEqual({ ticker: "AC ME" });
    expect(matchRoute("/stocks/:ticker/quote", "/stocks/a/b/quote")).toBeUndefined();
    expect(matchRoute("/stocks/:ticker/quote", "/stocks/%E0%A4%A/quote")).toBeUndefined();
  });
});
