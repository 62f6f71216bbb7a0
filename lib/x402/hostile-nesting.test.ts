import { describe, expect, it } from "vitest";
import { canonicalJson } from "./authorization-nonce";
import { selectPayableRequirement } from "./payment-requirements";

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

describe("hostile nesting in payment requirements", () => {
  it("a 402 option nested 100 000 levels deep is not payable, and nothing throws", () => {
    const result = selectPayableRequirement({ x402Version: 2, accepts: [option({ deep: nested(100_000) })] }, { networkNames: ["eip155:31337"], usdc });
    expect(result.ok).toBe(false);
  });

  it("canonical JSON refuses to recurse past its bound with a TypeError, not a stack overflow", () => {
    expect(() => canonicalJson(nested(100_000))).toThrow(TypeError);
    expect(canonicalJson({ b: [1, { d: 2, c: 3 }], a: "x" })).toBe('{"a":"x","b":[1,{"c":3,"d":2}]}');
  });
});
