import { describe, expect, it } from "vitest";
import type { ApprovalRequest } from "@/lib/stream";
import { describePermit2Allowance, neededPermit2Allowance, parsePermit2Allowance } from "./permit2-allowance";

const CEILING = 100_000n; // 0.1 USDC

describe("parsePermit2Allowance", () => {
  it("reads USDC decimals into base units, exactly", () => {
    expect(parsePermit2Allowance("0.1", CEILING)).toEqual({ ok: true, amount: 100_000n });
    expect(parsePermit2Allowance(" 25 ", CEILING)).toEqual({ ok: true, amount: 25_000_000n });
    expect(parsePermit2Allowance("2.5", CEILING)).toEqual({ ok: true, amount: 2_500_000n });
    expect(parsePermit2Allowance("0.100001", CEILING)).toEqual({ ok: true, amount: 100_001n });
    // Beyond a float's exact integers: no rounding on the way.
    expect(parsePermit2Allowance("123456789012345.123457", CEILING)).toEqual({ ok: true, amount: 123_456_789_012_345_123_457n });
  });

  it("takes exactly the ceiling, and refuses one base unit below it", () => {
    expect(parsePermit2Allowance("0.100000", CEILING)).toEqual({ ok: true, amount: CEILING });
    const below = parsePermit2Allowance("0.099999", CEILING);
    expect(below.ok).toBe(false);
    expect(below.ok ? "" : below.problem).toMatch(/at least 0\.1 USDC/);
  });

  it("refuses more than 6 decimals, saying so", () => {
    const result = parsePermit2Allowance("1.0000001", CEILING);
    expect(result).toEqual({ ok: false, problem: expect.stringMatching(/6 decimals/) });
  });

  it.each(["", "   ", "abc", "-1", "1e3", "0x10", "1,5", ".5", "5.", "Infinity", "1 000", "+2"])("refuses %j", (text) => {
    expect(parsePermit2Allowance(text, CEILING).ok).toBe(false);
  });
});

describe("neededPermit2Allowance", () => {
  const base = { amount: "0.1", ceiling: "0.1" } as ApprovalRequest;

  it("is the server's amount when it names one", () => {
    expect(neededPermit2Allowance({ ...base, permit2Approval: { spender: "0x1", token: "0x2", amount: "0.25" } } as ApprovalRequest)).toBe(250_000n);
  });

  it("is the ceiling when the server names none", () => {
    expect(neededPermit2Allowance({ ...base, permit2Approval: { spender: "0x1", token: "0x2" } } as ApprovalRequest)).toBe(CEILING);
  });

  it("is nothing when no approve is asked", () => {
    expect(neededPermit2Allowance(base)).toBeUndefined();
  });
});

describe("describePermit2Allowance", () => {
  it("says what Permit2 may then move, for anyone's Permit2 signature, until changed", () => {
    const words = describePermit2Allowance(CEILING, CEILING);
    expect(words).toContain("Permit2 may move up to 0.1 USDC from this wallet, for any app whose Permit2 signature you give, until you change it.");
    expect(words).toMatch(/later metered payment asks again/);
  });

  it("says how much of a larger allowance this payment needs", () => {
    expect(describePermit2Allowance(25_000_000n, CEILING)).toMatch(/^Permit2 may move up to 25 USDC .* This payment needs 0\.1 USDC of it/);
  });
});
