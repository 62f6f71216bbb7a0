/**
 * How much a deposit puts into a channel: about a hundred calls, or the service's suggested
 * deposit when larger, and never less than the call needs; capped by the caller's remaining
 * budget (`room`, what the ledger says a deposit may be at most) and by what the wallet holds.
 * Refused in words when even the call's own need does not fit.
 */
import { formatUsdc } from "../../../money";
import type { PaymentFailureReason } from "../../../stream";

/** Calls a first deposit is sized for (the official client's default is 5; a channel is worth it over many calls). */
export const CALLS_PER_DEPOSIT = 100n;

export type DepositSize = { ok: true; amount: bigint } | { ok: false; reason: PaymentFailureReason; text: string };

export function depositSize(input: {
  price: bigint;
  /** Calls the deposit is sized for; CALLS_PER_DEPOSIT unless named. */
  calls?: bigint;
  /** The service's suggested deposit (`extra.minDeposit`), when it named one. */
  minDeposit?: bigint;
  /** What this call needs the channel to hold more: charged + price − deposited. */
  needed: bigint;
  room: bigint;
  balance: bigint;
}): DepositSize {
  const { price, needed, room, balance } = input;
  let amount = price * (input.calls ?? CALLS_PER_DEPOSIT);
  if (input.minDeposit !== undefined && input.minDeposit > amount) amount = input.minDeposit;
  if (needed > amount) amount = needed;
  if (amount > room) amount = room;
  if (amount > balance) amount = balance;
  if (amount >= needed) return { ok: true, amount };
  if (room < needed) {
    return {
      ok: false,
      reason: "limit-exceeded",
      text: `A deposit to open the channel needs at least ${formatUsdc(needed)} USDC, more than the ${formatUsdc(room < 0n ? 0n : room)} USDC left in your daily budget`,
    };
  }
  return {
    ok: false,
    reason: "insufficient-balance",
    text: `A deposit to open the channel needs at least ${formatUsdc(needed)} USDC, and the paying wallet holds ${formatUsdc(balance)} USDC`,
  };
}
