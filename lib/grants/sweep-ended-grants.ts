/**
 * The reconciler's sweep of ended grants: a grant that simply expires (or was revoked while a
 * payment was in flight) may leave float on its payer account that no revoke and no later turn
 * gives back. Each run looks at a bounded number of ended, unswept grants and returns each one's
 * float through the same path revoke takes (grant-float.ts: a claim in the store, only when
 * nothing of the account is in flight). A grant found empty and idle is marked swept and not
 * looked at again. A failure is logged and left for the next run; the sweep never throws.
 */
import type { FloatReturn } from "./grant-float";
import type { GrantRecord, GrantStore } from "./grants";

/** Grants looked at per run: each return waits for its receipt (a few seconds on Base), and a run ends well within the cron route's 50 s. */
export const GRANT_SWEEPS_PER_RUN = 10;

export type GrantSweepDependencies = {
  grants: Pick<GrantStore, "endedUnswept">;
  /** Returns one grant's float (its payer's `returnFloat`). */
  returnFloat(grant: GrantRecord): Promise<FloatReturn>;
  /** A test's clock for what has ended; unset, the store's own clock (the database's) decides. */
  storeNow?: () => number;
  limit?: number;
  log?: (entry: Record<string, unknown>) => void;
};

/** `swept`: grants now marked swept; `floatReturned`: USDC base units sent back to wallets. */
export type GrantSweepReport = { checked: number; swept: number; floatReturned: bigint; failed: number };

export async function sweepEndedGrants(deps: GrantSweepDependencies): Promise<GrantSweepReport> {
  const log = deps.log ?? ((entry: Record<string, unknown>) => console.info(JSON.stringify(entry)));
  const report: GrantSweepReport = { checked: 0, swept: 0, floatReturned: 0n, failed: 0 };
  let grants: GrantRecord[];
  try {
    grants = await deps.grants.endedUnswept(deps.limit ?? GRANT_SWEEPS_PER_RUN, deps.storeNow?.());
  } catch (error) {
    report.failed += 1;
    log({ level: "error", event: "grant-sweep-failed", error: String(error) });
    return report;
  }
  for (const grant of grants) {
    report.checked += 1;
    try {
      const outcome = await deps.returnFloat(grant);
      if (outcome.state !== "returned") continue;
      report.floatReturned += outcome.returned;
      if (outcome.swept) report.swept += 1;
      if (outcome.returned > 0n || outcome.swept) {
        log({ level: "info", event: "grant-swept", grantId: grant.id, floatReturned: outcome.returned.toString(), swept: outcome.swept });
      }
    } catch (error) {
      // The claim was released (grant-float.ts): the next run tries again.
      report.failed += 1;
      log({ level: "error", event: "grant-sweep-failed", grantId: grant.id, error: String(error) });
    }
  }
  return report;
}
