import "server-only";
/**
 * One run of the reconciler, as the timer and the cron route both run it: payments left
 * undecided first (that frees the reservations of payments that died, so their payer accounts
 * are idle again), then the sweep of ended grants' float, then the refund of idle payment
 * channels (CHANNEL_IDLE_REFUND_SECONDS; their refunds go through the services, after the
 * chain's own work), then the payer's own withdrawals from channels whose service failed
 * CHANNEL_WITHDRAW_AFTER_FAILURES refunds in a row. The later passes run even when the
 * payments' pass failed, and that failure is thrown after them.
 */
import { recordChannelClaims, type ClaimRecordReport } from "../agent/purchase/channels/record-channel-claims";
import { refundIdleChannels } from "../agent/purchase/channels/refund-idle-channels";
import { withdrawChannels } from "../agent/purchase/channels/withdraw-channels";
import { reconcilePendingPayments, type ReconcileReport } from "../agent/purchase/reconcile-pending";
import { sweepEndedGrants, type GrantSweepReport } from "../grants/sweep-ended-grants";
import { formatUsdc } from "../money";
import { channelWithdrawalsOf, reconcileDependenciesOf, type AppDependencies } from "./app-dependencies";

/** The payments' report, the grants' and the channels' with their amounts in USDC (as JSON carries them). */
export type ReconcileRunReport = ReconcileReport & {
  grants: Omit<GrantSweepReport, "floatReturned"> & { floatReturned: string };
  channelRefunds?: { refunded: number; failed: number; amount: string };
  channelClaims?: ClaimRecordReport;
  channelWithdrawals?: { started: number; finished: number; failed: number };
};

export async function reconcileOnce(deps: AppDependencies, log?: (entry: Record<string, unknown>) => void): Promise<ReconcileRunReport> {
  const reconcile = reconcileDependenciesOf(deps);
  const payments = await reconcilePendingPayments({ ...reconcile, ...(log ? { log } : {}) }).then(
    (report) => ({ report }),
    (error: unknown) => ({ error }),
  );
  const grants = await sweepGrantsOf(deps, log);
  // Without a channel ledger or an agent wallet no channel was ever opened. What services
  // claimed is journaled first, so a refund sees it.
  const claims = reconcile.channelRefunds
    ? await recordChannelClaims({
        channels: reconcile.channelRefunds.channels,
        chain: deps.chain,
        payer: reconcile.channelRefunds.account.address,
        ...(log ? { log } : {}),
      }).catch((error: unknown) => {
        console.error(JSON.stringify({ level: "error", event: "channel-claims-failed", error: String(error) }));
        return { recorded: 0, payouts: 0, failed: 1 };
      })
    : undefined;
  const refunds = reconcile.channelRefunds
    ? await refundIdleChannels({ ...reconcile.channelRefunds, ...(log ? { log } : {}) }).catch((error: unknown) => {
        // The ledger could not list idle channels: nothing was refunded, the next run tries again.
        console.error(JSON.stringify({ level: "error", event: "channel-refunds-failed", error: String(error) }));
        return { refunded: 0, failed: 1, amount: 0n };
      })
    : undefined;
  const withdrawals = channelWithdrawalsOf(deps);
  const withdrawn = withdrawals
    ? await withdrawChannels({ ...withdrawals, ...(log ? { log } : {}) }).catch((error: unknown) => {
        // The ledger or the chain could not be read: nothing was sent, the next run tries again.
        console.error(JSON.stringify({ level: "error", event: "channel-withdrawals-failed", error: String(error) }));
        return { started: 0, finished: 0, failed: 1 };
      })
    : undefined;
  if ("error" in payments) throw payments.error;
  return {
    ...payments.report,
    grants: { ...grants, floatReturned: formatUsdc(grants.floatReturned) },
    ...(claims ? { channelClaims: claims } : {}),
    ...(withdrawn ? { channelWithdrawals: { started: withdrawn.started, finished: withdrawn.finished, failed: withdrawn.failed } } : {}),
    ...(refunds ? { channelRefunds: { refunded: refunds.refunded, failed: refunds.failed, amount: formatUsdc(refunds.amount) } } : {}),
  };
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
