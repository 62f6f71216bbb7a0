import { describe, expect, it } from "vitest";
import { readDemoIntent } from "./demo-intent";

describe("readDemoIntent", () => {
  it.each([
    ["What's the weather in Lisbon?", { kind: "buy", query: "weather", parameter: { name: "city", value: "Lisbon" } }],
    ["weather in new york today", { kind: "buy", query: "weather", parameter: { name: "city", value: "New York" } }],
    ["Is it raining in São Paulo", { kind: "buy", query: "weather", parameter: { name: "city", value: "São Paulo" } }],
    ["How much is bitcoin right now?", { kind: "buy", query: "crypto price", parameter: { name: "symbol", value: "BTC" } }],
    ["ETH spot price please", { kind: "buy", query: "crypto price", parameter: { name: "symbol", value: "ETH" } }],
    ["Get today's headlines about AI", { kind: "buy", query: "news headlines", parameter: { name: "topic", value: "AI" } }],
    ["buy the premium report", { kind: "buy", query: "premium report", parameter: { name: "topic", value: "the market" } }],
    ["EUR exchange rates please", { kind: "buy", query: "exchange rates", parameter: { name: "base", value: "EUR" } }],
    ["run an analysis on ethereum", { kind: "buy", query: "analysis", parameter: { name: "topic", value: "ethereum" } }],
  ])("%s", (text, expected) => {
    expect(readDemoIntent(text)).toEqual(expected);
  });

  it("tells looking from buying", () => {
    expect(readDemoIntent("find me a service for crypto prices")).toEqual({ kind: "discover", query: "crypto price" });
    expect(readDemoIntent("Compare the prices of all services")).toEqual({ kind: "discover", query: undefined });
    expect(readDemoIntent("list services")).toEqual({ kind: "discover", query: undefined });
  });

  it("buys a service named by the user and helps with anything else", () => {
    expect(readDemoIntent("please call the slow service")).toEqual({ kind: "buy", query: "slow" });
    expect(readDemoIntent("hello there")).toEqual({ kind: "help" });
    expect(readDemoIntent("what can you do?")).toEqual({ kind: "help" });
    expect(readDemoIntent("I declined the payment of 0.01 USDC to Devnet Weather.")).toEqual({ kind: "declined" });
  });
});
