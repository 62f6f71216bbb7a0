/**
 * The payments of one chat request: sends their progress as `p:` events, remembers each
 * one's latest state for the `d:` summary, and derives the request's finish reason.
 */
import type { PaymentListener } from "./payment-listener";
import type { PaymentJournal } from "../../journal/payment-journal";
import type { SignedReceipt } from "../../x402/signed-receipt";
import type { FinishReason, PaymentEvent, PaymentSummary } from "../../stream";
import { finishReasonForFailure } from "./finish-reason";

export type PaymentUpdate = Omit<PaymentEvent, "at"> & {
  /** The service's signed receipt itself: evidence for the journal, never sent in the stream. */
  signedReceipt?: SignedReceipt;
};

/** What the journal needs beyond a stream event: the quote's terms, in base units. */
export type JournalTerms = {
  payerKind: "agent" | "user";
  amount: bigint;
  nonce: string;
  validAfter: bigint;
  validBefore: bigint;
  method: string;
  /** Set for a metered payment: `amount` is then its ceiling until it settles. */
  scheme?: "upto";
  ceiling?: bigint;
};

/** What a proven settlement tells the journal: the amount the chain shows moved. */
export type JournalSettlement = { amount: bigint };

/** Where and under which request the payments of this request are journaled. */
export type JournalContext = {
  journal: PaymentJournal;
  requestKey: string;
  conversationId: string;
  now: () => number;
  log?: (entry: Record<string, unknown>) => void;
};

export class PaymentTracker {
  private readonly payments = new Map<string, PaymentSummary>();
  private lastSettledTxHash: string | null = null;
  /** Amounts of this request's payments that are signed, settling or settled. */
  private committed = 0n;
  private started = 0;

  /** Journal writes in the order of the updates; one failure is remembered for `recorded()`. */
  private journalWrites: Promise<void> = Promise.resolve();
  private journalFailed = false;

  constructor(
    private readonly writer: PaymentListener,
    private readonly journaling?: JournalContext,
  ) {}

  /**
   * Resolves once every journal write so far has finished: true when all succeeded. A payment
   * step that must be on record before the next one begins (signing, sending) awaits this.
   */
  async recorded(): Promise<boolean> {
    await this.journalWrites;
    return !this.journalFailed;
  }

  private discoveryFailures = 0;

  /** Sends a discovery progress event; discoveries are not payments and stay out of `d:`. */
  discovery(update: PaymentUpdate): void {
    if (this.writer.statusOf(update.id) === update.status) return;
    this.writer.payment(update);
    if (update.status === "failed") this.discoveryFailures += 1;
  }

  /**
   * Sends an event that moves no money (sign-in-with-x served it; the person's go-ahead is asked
   * first, ask-confirmation.ts): neither journaled nor listed in `d:`.
   */
  moneyless(update: PaymentUpdate): void {
    if (this.writer.statusOf(update.id) === update.status) return;
    this.writer.payment(update);
  }

  /**
   * Sends a payment progress event, records it for `d:` and journals it. Repeating the current
   * status is a no-op. `terms` come with the quote.
   */
  update(update: PaymentUpdate, terms?: JournalTerms | JournalSettlement): void {
    if (this.show(update)) this.journal(update, terms);
  }

  /**
   * Shows a step an earlier attempt of the same payment already took and journaled (a retry's
   * recorded outcome, purchase-once.ts): in this stream and in `d:`, never in the journal, whose
   * row is that payment's and stays as its first attempt left it.
   */
  replay(update: PaymentUpdate): void {
    this.show(update);
  }

  /** Shows a step whose journal row another writer keeps (the channel ledger's statements): never journaled twice. */
  journaledElsewhere(update: PaymentUpdate): void {
    this.show(update);
  }

  /** Another writer's journal write, finished after its step was shown (a channel's settle): `recorded()` waits for it; a failure makes it false. */
  recordedBy(write: Promise<unknown>): void {
    const settled = write.catch(() => void (this.journalFailed = true));
    this.journalWrites = Promise.all([this.journalWrites, settled]).then(() => undefined);
  }

  /** The request this tracker journals under, for a writer that journals its steps itself. */
  get journalKeys(): { requestKey: string; conversationId: string } | undefined {
    return this.journaling && { requestKey: this.journaling.requestKey, conversationId: this.journaling.conversationId };
  }

  /** Streams the step and remembers it for `d:`; false when it repeats the current status. */
  private show(update: PaymentUpdate): boolean {
    if (this.writer.statusOf(update.id) === update.status) return false;
    const { signedReceipt: _journalOnly, ...event } = update;
    this.writer.payment(event);
    const previous = this.payments.get(update.id);
    const summary: PaymentSummary = {
      id: update.id,
      status: update.status,
      service: update.service ?? previous?.service,
      resource: update.resource ?? previous?.resource,
      amount: update.amount ?? previous?.amount,
      ceiling: update.ceiling ?? previous?.ceiling,
      settlementFlag: update.settlementFlag ?? previous?.settlementFlag,
      payTo: update.payTo ?? previous?.payTo,
      network: update.network ?? previous?.network,
      // A failure names a hash only when it says so: a hash shown while pending may have been
      // a service's unproven claim, and a failure proven unspent must not keep it.
      txHash: update.txHash ?? (update.status === "failed" ? null : previous?.txHash) ?? null,
      reason: update.reason ?? previous?.reason,
      receipt: update.receipt ?? previous?.receipt,
    };
    this.payments.set(update.id, summary);
    if (update.status === "confirmed" && update.txHash) this.lastSettledTxHash = update.txHash;
    return true;
  }

  private journal(update: PaymentUpdate, terms: JournalTerms | JournalSettlement | undefined): void {
    const context = this.journaling;
    if (!context) return;
    const entry = {
      id: update.id,
      status: update.status,
      at: context.now(),
      requestKey: context.requestKey,
      conversationId: context.conversationId,
      ...(update.payer ? { payer: update.payer } : {}),
      ...(update.service ? { service: update.service } : {}),
      ...(update.resource ? { resource: update.resource } : {}),
      ...(update.asset ? { asset: update.asset } : {}),
      ...(update.network ? { network: update.network } : {}),
      ...(update.payTo ? { payTo: update.payTo } : {}),
      ...(update.reason ? { reason: update.reason } : {}),
      ...(update.message ? { message: update.message } : {}),
      // A hash beside `pending` is a service's claim the chain has not shown: the journal keeps
      // only proven ones, so neither a retry nor the history can take a claim for a payment.
      ...(update.txHash && update.status !== "pending" ? { txHash: update.txHash } : {}),
      ...(update.settlementFlag ? { settlementFlag: update.settlementFlag } : {}),
      ...(update.receipt ? { receipt: { ...update.receipt, ...(update.signedReceipt ? { signed: update.signedReceipt } : {}) } } : {}),
      ...(terms ?? {}),
    };
    this.journalWrites = this.journalWrites.then(() =>
      context.journal.record(entry).catch((error: unknown) => {
        this.journalFailed = true;
        (context.log ?? ((line) => console.error(JSON.stringify(line))))({
          level: "error",
          event: "journal-write-failed",
          paymentId: update.id,
          status: update.status,
          error: String(error),
        });
      }),
    );
  }

  /**
   * Claims room for a payment under the per-request limit and the per-request payment count.
   * Check and claim happen with no await between them, so parallel tool calls of one step
   * cannot both slip under the limit.
   */
  claimRequestBudget(amount: bigint, perRequestLimit: bigint, maxPayments: number): "ok" | "amount" | "count" {
    if (this.started >= maxPayments) return "count";
    if (this.committed + amount > perRequestLimit) return "amount";
    this.committed += amount;
    this.started += 1;
    return "ok";
  }

  /** Gives back a claim when it is certain that nothing was spent. */
  releaseRequestBudget(amount: bigint): void {
    this.committed -= amount;
    this.started -= 1;
  }

  /**
   * A metered payment claimed its ceiling and settled less: the difference is room for this
   * request's next payment. The payment itself still counts.
   */
  settleRequestBudget(claimed: bigint, settled: bigint): void {
    if (settled < claimed) this.committed -= claimed - settled;
  }

  /** Signed, settling and settled amounts of this request. */
  get committedAmount(): bigint {
    return this.committed;
  }

  /** Records a settlement shown from an earlier attempt, so `d:` names its hash. */
  markSettled(txHash: string): void {
    this.lastSettledTxHash = txHash;
  }

  get summaries(): PaymentSummary[] {
    return [...this.payments.values()];
  }

  get txHash(): string | null {
    return this.lastSettledTxHash;
  }

  /**
   * `stop` with no payment; `payment-complete` when every payment settled and delivered;
   * otherwise the reason of the last failed attempt. A payment still pending is neither:
   * the request ends `stop` and the summary says `pending`, never "failed".
   */
  finishReason(): FinishReason {
    const summaries = this.summaries;
    const failed = summaries.filter((summary) => summary.status === "failed");
    const lastFailure = failed.at(-1);
    if (lastFailure) return finishReasonForFailure(lastFailure.reason);
    const paid = summaries.filter((summary) => summary.status === "confirmed" || summary.status === "delivered");
    if (paid.length > 0 && paid.length === summaries.length) return "payment-complete";
    // Discovery failed and nothing else was attempted: the x402 side is offline.
    if (summaries.length === 0 && this.discoveryFailures > 0) return "service-unavailable";
    return "stop";
  }
}
