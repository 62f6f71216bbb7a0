import "server-only";
/**
 * What a caller has spent and reserved in the rolling day, against each daily limit that holds
 * it: the paying wallet's (for a named caller, the agent wallet's cap over every caller), and a
 * named caller's own budget. Read for information only: the decision is the ledger's atomic
 * reservation when a payment is made (reserve-budget.ts), never this.
 */
import { formatUsdc } from "../money";
import type { EffectiveLimits } from "../limits/spending-limits-input";
import type { SpendingLedger } from "../store/store-types";

export type DailyUse = { label: string; spent: string; reserved: string; limit: string; left: string };

export type DailyRoom = {
  /** Each daily limit that applies, with its use so far. */
  limits: DailyUse[];
  /** Base units: the most one more payment could take today (the tightest limit). */
  left: bigint;
};

export async function readDailyRoom(
  ledger: Pick<SpendingLedger, "spentToday" | "spentInScope">,
  limits: EffectiveLimits,
  payer: string | undefined,
  now?: number,
): Promise<DailyRoom> {
  // The window is cut on the store's clock; only a test's injected clock is passed down.
  const clock = now === undefined ? {} : { now };
  const { scope } = limits;
  const uses: { label: string; settled: bigint; reserved: bigint; limit: bigint }[] = [];
  if (payer) {
    const wallet = await ledger.spentToday(payer, clock);
    uses.push({ label: scope ? "the agent wallet's daily cap" : "the daily limit", ...wallet, limit: scope ? scope.walletDailyCap : limits.daily });
  }
  if (scope) {
    const own = await ledger.spentInScope(scope.key, clock);
    uses.push({ label: `the daily limit of ${scope.label}`, ...own, limit: limits.daily });
  }
  const lefts = uses.map((use) => positive(use.limit - use.settled - use.reserved));
  return {
    limits: uses.map((use, index) => ({
      label: use.label,
      spent: formatUsdc(use.settled),
      reserved: formatUsdc(use.reserved),
      limit: formatUsdc(use.limit),
      left: formatUsdc(lefts[index] as bigint),
    })),
    left: lefts.reduce((least, left) => (left < least ? left : least), limits.daily),
  };
}

function positive(amount: bigint): bigint {
  return amount > 0n ? amount : 0n;
}
