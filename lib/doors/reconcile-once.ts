import "server-only";
/**
 * One run of the reconciler, as the timer and the cron route both run it: payments left
 * undecided first (that frees the reservations of payments that died, so their payer accounts
 * are idle again), then the sweep of ended grants' float. The sweep runs even when the
 * payments' pass failed, and that failure is thrown after it.
 */
import { reconcilePendingPayments, type ReconcileReport } from "../agent/purchase/reconcile-pending";
import { sweepEndedGrants, type GrantSweepReport } from "../grants/sweep-ended-grants";
import { formatUsdc } from "../money";
import { reconcileDependenciesOf, type AppDependencies } from "./app-dependencies";

/** The payments' report, and the grants' with the float returned in USDC (as JSON carries it). */
export type ReconcileRunReport = ReconcileReport & { grants: Omit<GrantSweepReport, "floatReturned"> & { floatReturned: string } };

export async function reconcileOnce(deps: AppDependencies, log?: (entry: Record<string, unknown>) => void): Promise<ReconcileRunReport> {
  const payments = await reconcilePendingPayments({ ...reconcileDependenciesOf(deps), ...(log ? { log } : {}) }).then(
    (report) => ({ report }),
    (error: unknown) => ({ error }),
  );
  const grants = await sweepGrantsOf(deps, log);
  if ("error" in payments) throw payments.error;
  return { ...payments.report, grants: { ...grants, floatReturned: formatUsdc(grants.floatReturned) } };
}

/** The sweep with the app's store and payers; nothing to sweep without a relayer (no grant pays then). */
export function sweepGrantsOf(deps: AppDependencies, log?: (entry: Record<string, unknown>) => void): Promise<GrantSweepReport> {
  const payerOf = deps.grantPayer;
  if (!payerOf) return Promise.resolve({ checked: 0, swept: 0, floatReturned: 0n, failed: 0 });
  return sweepEndedGrants({
    grants: deps.store.grants,
    returnFloat: (grant) => payerOf(grant).returnFloat(),
    storeNow: deps.storeClock,
    log,
  });
}
