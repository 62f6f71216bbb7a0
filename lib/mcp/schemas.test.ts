import { describe, expect, it } from "vitest";
import { z } from "zod";
import { AskAgentInput, BuyInput, DiscoverServicesInput, QuoteInput, SpendingStatusInput } from "./schemas";

const URL_OK = "https://api.example.test/weather?city=Oslo";

describe("the MCP tools' input schemas", () => {
  it("buy: a URL is enough; the method defaults to GET; key, price and body are checked", () => {
    expect(BuyInput.parse({ url: URL_OK })).toEqual({ url: URL_OK, method: "GET" });
    expect(
      BuyInput.parse({ url: URL_OK, method: "POST", body: { text: "hi" }, bodyType: "json", idempotencyKey: "run-1:a.b_c", maxPrice: "0.05" }),
    ).toMatchObject({ method: "POST", maxPrice: "0.05" });
    expect(BuyInput.parse({ url: URL_OK, maxPrice: 0.05 }).maxPrice).toBe(0.05);
    for (const bad of [
      {},
      { url: "ftp://api.example.test/file" },
      { url: "not a url" },
      { url: `https://api.example.test/${"a".repeat(2100)}` },
      { url: URL_OK, method: "TRACE" },
      { url: URL_OK, idempotencyKey: "" },
      { url: URL_OK, idempotencyKey: "with space" },
      { url: URL_OK, idempotencyKey: "k".repeat(129) },
      { url: URL_OK, maxPrice: "0.0000001" },
      { url: URL_OK, maxPrice: -1 },
      { url: URL_OK, maxPrice: "one dollar" },
      { url: URL_OK, body: "x".repeat(16_385) },
      { url: URL_OK, bodyType: "xml" },
    ]) {
      expect(BuyInput.safeParse(bad).success, JSON.stringify(bad).slice(0, 80)).toBe(false);
    }
  });

  it("quote takes the same call as buy, without a key or a price", () => {
    expect(QuoteInput.parse({ url: URL_OK, idempotencyKey: "k", maxPrice: "1" })).toEqual({ url: URL_OK, method: "GET" });
  });

  it("discover_services needs a query (empty lists everything); maxPrice is a USDC amount; type is http only", () => {
    expect(DiscoverServicesInput.parse({ query: "" })).toEqual({ query: "" });
    expect(DiscoverServicesInput.parse({ query: "weather", maxPrice: "0.02", type: "http" })).toEqual({ query: "weather", maxPrice: "0.02", type: "http" });
    expect(DiscoverServicesInput.safeParse({}).success).toBe(false);
    expect(DiscoverServicesInput.safeParse({ query: "q".repeat(201) }).success).toBe(false);
    expect(DiscoverServicesInput.safeParse({ query: "x", type: "mcp" }).success).toBe(false);
    expect(DiscoverServicesInput.safeParse({ query: "x", maxPrice: "-0.01" }).success).toBe(false);
  });

  it("ask_agent needs a prompt with words in it, within a chat message's size; spendingLimits are the chat's; idempotencyKey is buy's", () => {
    expect(AskAgentInput.parse({ prompt: "  Buy the weather in Tokyo " })).toEqual({ prompt: "Buy the weather in Tokyo" });
    expect(AskAgentInput.parse({ prompt: "x", spendingLimits: { perPayment: "0.5" } }).spendingLimits).toEqual({ perPayment: "0.5" });
    expect(AskAgentInput.parse({ prompt: "x", idempotencyKey: "turn-1:a.b_c" }).idempotencyKey).toBe("turn-1:a.b_c");
    for (const bad of [
      {},
      { prompt: "   " },
      { prompt: "x".repeat(16_001) },
      { prompt: "x", spendingLimits: { perPayment: "0.5", total: 1 } },
      { prompt: "x", spendingLimits: { daily: "lots" } },
      // The key is checked as buy's is.
      { prompt: "x", idempotencyKey: "" },
      { prompt: "x", idempotencyKey: "with space" },
      { prompt: "x", idempotencyKey: "k".repeat(129) },
    ]) {
      expect(AskAgentInput.safeParse(bad).success, JSON.stringify(bad).slice(0, 80)).toBe(false);
    }
  });

  it("spending_status takes no arguments", () => {
    expect(SpendingStatusInput.parse({})).toEqual({});
  });

  it("publishes JSON Schemas with the required fields and descriptions a client shows", () => {
    const buy = z.toJSONSchema(BuyInput, { io: "input" }) as { required?: string[]; properties: Record<string, { description?: string }> };
    expect(buy.required).toEqual(["url"]);
    expect(Object.keys(buy.properties)).toEqual(["url", "method", "body", "bodyType", "idempotencyKey", "maxPrice"]);
    for (const [name, property] of Object.entries(buy.properties)) expect(property.description, name).toBeTruthy();
    const ask = z.toJSONSchema(AskAgentInput, { io: "input" }) as { required?: string[] };
    expect(ask.required).toEqual(["prompt"]);
  });
});
