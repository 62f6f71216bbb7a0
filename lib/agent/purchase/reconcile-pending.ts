import "server-only";
/**
 * The reconciler: payments the journal shows unfinished (a request ended with the outcome
 * undecided, or the process died mid-payment) are looked at again until the chain proves the
 * outcome. Used: the reservation becomes spending and the journal says `confirmed` with the
 * hash (a metered `upto` permit at the amount its settlement moved, the rest of its ceiling
 * freed). Expired unused: the reservation is released and the journal says `failed`. A payment
 * whose authorization may still be in a live request's hands is left to that request.
 * Idempotent and safe to run concurrently (ledger commit and release are idempotent, and an
 * authorization that was used stays used), so a timer and a cron route may both run it.
 */
import type { PaymentJournal, PaymentRecord } from "../../journal/payment-journal";
import type { SpendingLedger } from "../../store/store-types";
import type { ChainReader } from "../../x402/chain-reader";
import { readAuthorizationOutcome } from "./authorization-outcome";
import { schemeNamed } from "./schemes/payment-schemes";
import type { ChannelRefundDependencies } from "./channels/refund-idle-channels";
import { EXPIRY_MARGIN_SECONDS } from "./authorization-window";

export type ReconcileDependencies = {
  chain: ChainReader;
  ledger: SpendingLedger;
  journal: PaymentJournal;
  now: () => number;
  log?: (entry: Record<string, unknown>) => void;
  /** Where the agent pays through channels (the database store): idle channels are refunded by the same run. */
  channelRefunds?: ChannelRefundDependencies;
};

export type ReconcileReport = { checked: number; settled: number; released: number; stillPending: number; inFlight: number; failed: number };

/** A used authorization whose transaction cannot be found is committed under this marker. */
const UNKNOWN_TX_HASH = `0x${"0".repeat(64)}`;
const BATCH = 500;

export async function reconcilePendingPayments(deps: ReconcileDependencies): Promise<ReconcileReport> {
  const now = deps.now;
  const log = deps.log ?? ((entry: Record<string, unknown>) => console.info(JSON.stringify(entry)));
  const report: ReconcileReport = { checked: 0, settled: 0, released: 0, stillPending: 0, inFlight: 0, failed: 0 };
  for (const payment of await deps.journal.unsettled(BATCH)) {
    if (!payment.nonce || payment.validBefore === undefined || !/^0x[0-9a-fA-F]{40}$/.test(payment.payer)) continue;
    report.checked += 1;
    const nowSeconds = BigInt(Math.floor(now() / 1000));
    // Only `pending` was handed over; any other unfinished state may belong to a live request
    // until its authorization is dead, or to a request that died (then it is ours).
    if (payment.status !== "pending" && nowSeconds <= payment.validBefore + BigInt(EXPIRY_MARGIN_SECONDS)) {
      report.inFlight += 1;
      continue;
    }
    try {
      await reconcileOne(deps, payment, nowSeconds, report, log);
    } catch (error) {
      // Left in place: the next run tries again; the reservation keeps the budget safe meanwhile.
      report.failed += 1;
      log({ level: "error", event: "reconcile-failed", paymentId: payment.id, error: String(error) });
    }
  }
  return report;
}

async function reconcileOne(
  deps: ReconcileDependencies,
  payment: PaymentRecord,
  nowSeconds: bigint,
  report: ReconcileReport,
  log: (entry: Record<string, unknown>) => void,
): Promise<void> {
  const now = deps.now;
  const nonce = payment.nonce as `0x${string}`;
  const validBefore = payment.validBefore as bigint;
  // Payments other instances signed, on clocks of their own: the chain's clock judges expiry.
  // A metered payment's permit is asked of Permit2 (its nonce bitmap), an exact one of the token.
  const payTo = payment.payTo as `0x${string}` | undefined;
  const authorization = schemeNamed(payTo ? payment.scheme : undefined).authorizationRef({
    payer: payment.payer as `0x${string}`,
    nonce,
    validBefore,
    payTo: payTo ?? NO_PAYEE,
  });
  const outcome = await readAuthorizationOutcome(deps.chain, authorization, now, "chain");
  if (outcome.state === "used" && (outcome.txHash || nowSeconds > validBefore)) {
    // Money moved: count it against the budget even if its transaction is out of reach (a
    // metered one at its whole ceiling then, the most it can have moved).
    const txHash = outcome.txHash ?? UNKNOWN_TX_HASH;
    const settled = outcome.amount === undefined ? {} : { amount: outcome.amount };
    await deps.ledger.commit(nonce, { txHash, ...settled });
    await deps.journal.record({
      id: payment.id,
      status: "confirmed",
      at: now(),
      txHash,
      ...settled,
      message: "The payment settled on chain; found by the reconciler.",
    });
    report.settled += 1;
    log({ level: "info", event: "reconciled", paymentId: payment.id, outcome: "settled", txHash });
  } else if (outcome.state === "expired-unused") {
    await deps.ledger.release(nonce);
    const signed = payment.status !== "quoted" && payment.status !== "awaiting-approval";
    const message = signed ? "The authorization expired unused, so nothing was spent." : "The quote expired without being paid; nothing was spent.";
    await deps.journal.record({ id: payment.id, status: "failed", at: now(), reason: "payment-failed", message });
    report.released += 1;
    log({ level: "info", event: "reconciled", paymentId: payment.id, outcome: "expired-unused" });
  } else {
    report.stillPending += 1;
  }
}

/** A row journaled without its payee is read as the journal's default scheme, which names none. */
const NO_PAYEE = `0x${"0".repeat(40)}` as const;
