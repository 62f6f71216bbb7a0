/** The deposit strategy: a hundred prices or the suggested deposit, at least the need, capped by room and balance. */
import { describe, expect, it } from "vitest";
import { depositSize } from "./deposit-size";

describe("a channel's deposit", () => {
  it("is a hundred prices, or the suggested deposit when larger, and at least what the call needs", () => {
    expect(depositSize({ price: 1_000n, needed: 1_000n, room: 10n ** 9n, balance: 10n ** 9n })).toEqual({ ok: true, amount: 100_000n });
    expect(depositSize({ price: 1_000n, minDeposit: 250_000n, needed: 1_000n, room: 10n ** 9n, balance: 10n ** 9n })).toEqual({ ok: true, amount: 250_000n });
    expect(depositSize({ price: 1_000n, needed: 400_000n, room: 10n ** 9n, balance: 10n ** 9n })).toEqual({ ok: true, amount: 400_000n });
  });

  it("is capped by the room the budgets leave and by the wallet's balance", () => {
    expect(depositSize({ price: 1_000n, needed: 1_000n, room: 30_000n, balance: 10n ** 9n })).toEqual({ ok: true, amount: 30_000n });
    expect(depositSize({ price: 1_000n, needed: 1_000n, room: 10n ** 9n, balance: 7_000n })).toEqual({ ok: true, amount: 7_000n });
  });

  it("is refused in words when even the call's own need does not fit, naming the budget or the balance", () => {
    expect(depositSize({ price: 1_000n, needed: 1_000n, room: 999n, balance: 10n ** 9n })).toMatchObject({
      ok: false,
      reason: "limit-exceeded",
      text: expect.stringMatching(/daily budget/),
    });
    expect(depositSize({ price: 1_000n, needed: 1_000n, room: 10n ** 9n, balance: 999n })).toMatchObject({
      ok: false,
      reason: "insufficient-balance",
      text: expect.stringMatching(/the paying wallet holds 0\.000999 USDC/),
    });
  });
});
