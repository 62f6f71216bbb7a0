import { describe, expect, it } from "vitest";
import { describeGrant, describeGrantEnd, formatUntil, GRANT_EXPIRY_CHOICES, parseGrantAmount } from "./grant-terms";

describe("parseGrantAmount", () => {
  it("reads a USDC decimal into base units without floats", () => {
    expect(parseGrantAmount(" 0.03 ")).toEqual({ ok: true, amount: 30_000n, text: "0.03" });
    expect(parseGrantAmount("2.500000")).toEqual({ ok: true, amount: 2_500_000n, text: "2.5" });
  });

  it("refuses empty, zero, more than 6 decimals and anything not a decimal", () => {
    for (const text of ["", "0", "0.0000001", "1e3", "-1", "abc"]) expect(parseGrantAmount(text).ok).toBe(false);
    const tooFine = parseGrantAmount("0.1234567");
    expect(tooFine.ok === false && tooFine.problem).toMatch(/6 decimals/);
  });
});

describe("the grant's words", () => {
  it("say the amount, the time, that Permit2 enforces it and that it can be revoked", () => {
    const words = describeGrant(30_000n, "14:05");
    expect(words).toContain("up to 0.03 USDC");
    expect(words).toContain("until 14:05");
    expect(words).toMatch(/without asking/);
    expect(words).toMatch(/Permit2 enforces/);
    expect(words).toMatch(/revoke it any time/);
  });

  it("name the date only when the expiry is not today", () => {
    const now = new Date(2026, 10, 27, 10, 0);
    expect(formatUntil(new Date(2026, 10, 27, 18, 0), now)).not.toMatch(/\s\S+\s/);
    expect(formatUntil(new Date(2026, 10, 28, 9, 0), now)).not.toBe(formatUntil(new Date(2026, 10, 27, 9, 0), now));
  });

  it("offer expiries within the server's bound of a day", () => {
    for (const choice of GRANT_EXPIRY_CHOICES) expect(choice.seconds).toBeLessThanOrEqual(86_400);
  });

  it("say why a grant stopped paying, and that payments ask again", () => {
    expect(describeGrantEnd("revoked")).toMatch(/^The grant was revoked\..*ask for your approval again/);
    expect(describeGrantEnd("refused")).toMatch(/Nothing was paid/);
  });
});
