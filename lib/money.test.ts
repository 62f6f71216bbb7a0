import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { formatUsdc, parseUsdc } from "./money";

describe("USDC amounts", () => {
  it("parses decimal strings and numbers into base units", () => {
    expect(parseUsdc("1")).toBe(1_000_000n);
    expect(parseUsdc("0.05")).toBe(50_000n);
    expect(parseUsdc("0.000001")).toBe(1n);
    expect(parseUsdc(2.5)).toBe(2_500_000n);
    expect(parseUsdc(" 3.10 ")).toBe(3_100_000n);
  });

  it("refuses negatives, too many decimals, exponents and non-finite values", () => {
    for (const bad of ["-1", "0.0000001", "1e3", "abc", "", ".5", "1.", Number.NaN, Number.POSITIVE_INFINITY, -0.5, 1e-7]) {
      expect(parseUsdc(bad as string | number), String(bad)).toBeUndefined();
    }
  });

  it("formats without trailing zeros and round-trips every amount", () => {
    expect(formatUsdc(50_000n)).toBe("0.05");
    expect(formatUsdc(5_000_000n)).toBe("5");
    expect(formatUsdc(-1n)).toBe("-0.000001");
    fc.assert(
      fc.property(fc.bigInt({ min: 0n, max: 10n ** 20n }), (amount) => {
        expect(parseUsdc(formatUsdc(amount))).toBe(amount);
      }),
    );
  });
});
