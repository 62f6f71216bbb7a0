import { describe, expect, it } from "vitest";
import { exchangeRates, newsHeadlines, premiumReport, seededFraction, spotPrice, weatherReport } from "./demo-data";
import { DEMO_SERVICES } from "./service-catalog";

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
  it("has unique names, paths and prices, at most five tags each, and one v1 and one offline service", () => {
    const unique = (values: unknown[]) => new Set(values).size === values.length;
    expect(unique(DEMO_SERVICES.map((service) => service.name))).toBe(true);
    expect(unique(DEMO_SERVICES.map((service) => service.path))).toBe(true);
    expect(unique(DEMO_SERVICES.map((service) => service.price))).toBe(true);
    expect(DEMO_SERVICES.every((service) => service.tags.length <= 5)).toBe(true);
    expect(DEMO_SERVICES.filter((service) => service.x402Version === 1)).toHaveLength(1);
    expect(DEMO_SERVICES.filter((service) => service.alwaysOffline)).toHaveLength(1);
  });

  it("checks queries before payment and answers example queries", async () => {
    for (const service of DEMO_SERVICES) {
      const example = new URLSearchParams(Object.entries(service.queryParameters).map(([key, parameter]) => [key, parameter.example]));
      expect(service.checkQuery(example), service.name).toBeUndefined();
      expect(service.checkQuery(new URLSearchParams()), service.name).toMatch(/required/);
      const answer = await service.answer(example, { slowDelayMs: 0, signal: new AbortController().signal });
      expect(answer.ok, service.name).toBe(true);
    }
  });

  it("stops the slow service's wait when the caller leaves", async () => {
    const slow = DEMO_SERVICES.find((service) => service.name === "slow-analysis");
    const controller = new AbortController();
    const answer = slow?.answer(new URLSearchParams({ topic: "x" }), { slowDelayMs: 60_000, signal: controller.signal });
    controller.abort(new Error("gone"));
    await expect(answer).rejects.toThrow("gone");
  });
});
