import "server-only";
/**
 * At most one payment per intent. The first attempt claims the intent's key in the shared
 * store; a repeat (the same tool call again, a client retry, a retry after a dropped stream, a
 * replayed signature) gets the recorded outcome instead of a second payment. A claim is given
 * back only when the attempt certainly spent nothing, so a genuine retry may try again.
 */
import { AppError } from "../../errors";
import type { IdempotencyStore } from "../../store/store-types";
import { FINAL_STATUSES, type PaymentRecord } from "../../journal/payment-journal";
import { formatUsdc } from "../../money";
import { describeExpiry } from "./authorization-window";
import type { PaymentTracker } from "./payment-tracker";
import type { PurchaseOutcome } from "./purchase-types";

/** How long an intent's outcome is remembered. */
export const INTENT_TTL_SECONDS = 15 * 60;
/**
 * How long a claim may stay unfinished before the store forgets it. As long as a record: when
 * the outcome could not be recorded (the store failed, the process died), the outcome is
 * unknown, and a retry inside the window must not pay again.
 */
const CLAIM_TTL_SECONDS = INTENT_TTL_SECONDS;

export type PurchaseOnceOptions = {
  store: IdempotencyStore;
  key: string;
  tracker: PaymentTracker;
  /**
   * What the journal knows of this intent's payment, for a retry whose first attempt stopped
   * (its instance died) before its outcome was recorded here.
   */
  earlier?: () => Promise<PaymentRecord | undefined>;
  /** How long to wait for another attempt of the same intent that is still running. */
  waitMs?: number;
  pollMs?: number;
  log?: (entry: Record<string, unknown>) => void;
};

export async function purchaseOnce(options: PurchaseOnceOptions, attempt: () => Promise<PurchaseOutcome>): Promise<PurchaseOutcome> {
  let claim;
  try {
    claim = await options.store.claim(options.key, CLAIM_TTL_SECONDS);
  } catch (error) {
    // Fail closed: without the store we cannot know whether this intent was already paid.
    const log = options.log ?? ((line: Record<string, unknown>) => console.error(JSON.stringify(line)));
    log({
      level: "error",
      event: "intent-claim-failed",
      key: options.key,
      error: String(error),
      details: AppError.isInstance(error) ? error.details : undefined,
    });
    const message = AppError.isInstance(error) ? error.safeMessage : "The payment ledger is unavailable.";
    return { status: "refused", message: `${message} No payment was attempted.` };
  }

  if (claim.claimed) {
    // If the attempt throws, the claim stays until it expires: it may have failed after signing.
    const outcome = await attempt();
    if (spentNothing(outcome)) {
      await options.store.release(options.key).catch(() => undefined);
    } else {
      await recordOutcome(options, outcome);
    }
    return outcome;
  }

  let record = claim.record;
  const deadline = Date.now() + (options.waitMs ?? 5_000);
  while (!record && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, options.pollMs ?? 200));
    record = await options.store.get(options.key).catch(() => null);
  }
  if (!record) {
    const earlier = await options.earlier?.().catch(() => undefined);
    const known = earlier ? journaledOutcome(earlier) : undefined;
    if (known) {
      replay(options.tracker, known);
      return known;
    }
    return {
      status: "refused",
      message:
        "An earlier attempt of this same purchase is still running or its outcome is unknown, so it was not started again; any payment it made is reported there.",
    };
  }
  const outcome = record.outcome as PurchaseOutcome;
  replay(options.tracker, outcome);
  return outcome;
}

/**
 * What to tell a retry from the journal's row of the earlier attempt's payment: paid (its data
 * went with the attempt that stopped, the hash stays), or signed and not yet decided by the
 * chain. Anything else (nothing signed, failed unpaid) says no more than "not started again".
 */
function journaledOutcome(payment: PaymentRecord): PurchaseOutcome | undefined {
  const amount = payment.amount === undefined ? "" : ` ${formatUsdc(payment.amount)} USDC`;
  if (payment.txHash && payment.status !== "failed") {
    return {
      status: "failed",
      paymentId: payment.id,
      reason: "payment-failed",
      txHash: payment.txHash,
      message: `An earlier attempt of this request paid${amount} (transaction ${payment.txHash}), and its server stopped before the service's answer was kept, so that answer cannot be shown again. It was not paid again.`,
    };
  }
  if (payment.txHash) {
    return {
      status: "failed",
      paymentId: payment.id,
      reason: "payment-failed",
      txHash: payment.txHash,
      message: payment.message ?? `An earlier attempt of this request paid${amount} (transaction ${payment.txHash}) and failed. It was not paid again.`,
    };
  }
  if (!FINAL_STATUSES.has(payment.status) && payment.status !== "quoted" && payment.validBefore !== undefined) {
    return {
      status: "pending",
      paymentId: payment.id,
      expiresAt: Number(payment.validBefore) * 1000,
      message: `An earlier attempt of this request signed a payment of${amount} whose outcome the chain has not decided yet (the signature is usable until ${describeExpiry(payment.validBefore)}). It was not signed again; the payment history will show how it ends.`,
    };
  }
  return undefined;
}

/**
 * Stores the outcome for retries. If that fails twice, the claim stays in place for the whole
 * window, so a retry is told the outcome is unknown instead of paying again.
 */
async function recordOutcome(options: PurchaseOnceOptions, outcome: PurchaseOutcome): Promise<void> {
  const entry = { status: outcome.status, ...("txHash" in outcome && outcome.txHash ? { txHash: outcome.txHash } : {}), outcome };
  for (let attempt = 1; attempt <= 2; attempt += 1) {
    try {
      await options.store.complete(options.key, entry, INTENT_TTL_SECONDS);
      return;
    } catch (error) {
      if (attempt === 2) {
        const log = options.log ?? ((line: Record<string, unknown>) => console.error(JSON.stringify(line)));
        log({ level: "error", event: "intent-record-failed", key: options.key, status: outcome.status, error: String(error) });
      }
    }
  }
}

/** True when the attempt certainly moved no money and signed nothing still valid. */
function spentNothing(outcome: PurchaseOutcome): boolean {
  switch (outcome.status) {
    case "free":
    case "signed-in":
    case "awaiting-approval":
    case "refused":
      return true;
    case "failed":
      return !outcome.txHash;
    default:
      return false;
  }
}

/**
 * Shows a recorded outcome in this stream, saying plainly that it is not a new payment. Stream
 * only: the journal already holds this payment as its first attempt recorded it, and a retry
 * (which may come from anyone who can repeat the request) must not rewrite that row.
 */
function replay(tracker: PaymentTracker, outcome: PurchaseOutcome): void {
  const message = "Already paid by an earlier attempt of this request; this is its recorded result, not a new payment.";
  switch (outcome.status) {
    case "delivered":
      tracker.replay({
        id: outcome.paymentId,
        status: "delivered",
        service: outcome.service,
        resource: outcome.resource,
        amount: outcome.amount,
        txHash: outcome.txHash as `0x${string}`,
        message,
      });
      tracker.markSettled(outcome.txHash);
      break;
    case "pending":
      tracker.replay({
        id: outcome.paymentId,
        status: "pending",
        ...(outcome.txHash ? { txHash: outcome.txHash } : {}),
        message: `${outcome.message} This is the recorded state of an earlier attempt; it was not paid again.`,
      });
      break;
    case "failed":
      tracker.replay({
        id: outcome.paymentId,
        status: "failed",
        reason: outcome.reason,
        ...(outcome.txHash ? { txHash: outcome.txHash } : {}),
        message: `${outcome.message} ${message}`,
      });
      if (outcome.txHash) tracker.markSettled(outcome.txHash);
      break;
    default:
      break;
  }
}
