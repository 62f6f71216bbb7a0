import "server-only";
/**
 * The reconciler: payments that ended their request still undecided (the service took the
 * signature and the chain had not yet shown its fate) are looked at again until the chain
 * proves the outcome. Used: the reservation becomes spending. Expired unused: it is released.
 * Idempotent and safe to run concurrently (ledger commit and release are idempotent, and an
 * authorization that was used stays used), so a timer and a cron route may both run it.
 */
import type { SpendingLedger } from "../../store/store-types";
import type { PendingPaymentStore } from "../../store/pending-payment";
import type { ChainReader } from "../../x402/chain-reader";
import { readAuthorizationOutcome } from "./authorization-outcome";

export type ReconcileDependencies = {
  chain: ChainReader;
  ledger: SpendingLedger;
  pendingPayments: PendingPaymentStore;
  now?: () => number;
  log?: (entry: Record<string, unknown>) => void;
};

export type ReconcileReport = { checked: number; settled: number; released: number; stillPending: number; failed: number };

/** A used authorization whose transaction cannot be found is committed under this marker. */
const UNKNOWN_TX_HASH = `0x${"0".repeat(64)}`;

export async function reconcilePendingPayments(deps: ReconcileDependencies): Promise<ReconcileReport> {
  const now = deps.now ?? Date.now;
  const log = deps.log ?? ((entry: Record<string, unknown>) => console.info(JSON.stringify(entry)));
  const report: ReconcileReport = { checked: 0, settled: 0, released: 0, stillPending: 0, failed: 0 };
  for (const payment of await deps.pendingPayments.list()) {
    report.checked += 1;
    const authorization = { payer: payment.payer as `0x${string}`, nonce: payment.nonce as `0x${string}`, validBefore: BigInt(payment.validBefore) };
    try {
      const outcome = await readAuthorizationOutcome(deps.chain, authorization, now);
      const expired = BigInt(Math.floor(now() / 1000)) > authorization.validBefore;
      if (outcome.state === "used" && (outcome.txHash || expired)) {
        // Money moved: count it against the budget even if its transaction is out of reach.
        await deps.ledger.commit(payment.nonce, { txHash: outcome.txHash ?? UNKNOWN_TX_HASH });
        await deps.pendingPayments.remove(payment.id);
        report.settled += 1;
        log({ level: "info", event: "reconciled", paymentId: payment.id, outcome: "settled", txHash: outcome.txHash ?? null });
      } else if (outcome.state === "expired-unused") {
        await deps.ledger.release(payment.nonce);
        await deps.pendingPayments.remove(payment.id);
        report.released += 1;
        log({ level: "info", event: "reconciled", paymentId: payment.id, outcome: "expired-unused" });
      } else {
        report.stillPending += 1;
      }
    } catch (error) {
      // Left in place: the next run tries again; the reservation keeps the budget safe meanwhile.
      report.failed += 1;
      log({ level: "error", event: "reconcile-failed", paymentId: payment.id, error: String(error) });
    }
  }
  return report;
}
