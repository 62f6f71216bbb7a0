import { describe, expect, it } from "vitest";
import { REQUIREMENT_LIMITS, withinJsonLimits } from "./json-limits";

function nested(depth: number, leaf: unknown = 1): unknown {
  let value = leaf;
  for (let level = 0; level < depth; level += 1) value = [value];
  return value;
}

const usdc = "0x5FbDB2315678afecb367f032d93F642f64180aa3";
const option = (extra: Record<string, unknown>) => ({
  scheme: "exact",
  network: "eip155:31337",
  amount: "10000",
  asset: usdc,
  payTo: "0x9965507D1a55bcC2695C58ba16FB37d819B0A4dc",
  maxTimeoutSeconds: 60,
  extra: { name: "USD Coin", version: "2", ...extra },
});

describe("withinJsonLimits", () => {
  it("accepts ordinary requirements and refuses deep, wide or long ones, without recursion", () => {
    expect(withinJsonLimits(option({}))).toBe(true);
    expect(withinJsonLimits(nested(REQUIREMENT_LIMITS.maxDepth - 1))).toBe(true);
    expect(withinJsonLimits(nested(REQUIREMENT_LIMITS.maxDepth + 1))).toBe(false);
    expect(withinJsonLimits(nested(1_000_000))).toBe(false);
    expect(withinJsonLimits(Array.from({ length: 10_000 }, () => 1))).toBe(false);
    expect(withinJsonLimits({ text: "x".repeat(100_000) })).toBe(false);
  });
});
