/**
 * At most one payment per intent, including when the outcome cannot be recorded: the claim
 * then stands for the whole window, so a retry is told the outcome is unknown and never pays.
 */
import { describe, expect, it, vi } from "vitest";
import { MemoryJournal } from "../../journal/memory-journal";
import { MemoryIdempotencyStore } from "../../store/memory-idempotency-store";
import { StreamWriter, type PaymentEvent } from "../../stream";
import { PaymentTracker } from "./payment-tracker";
import { INTENT_TTL_SECONDS, purchaseOnce } from "./purchase-once";
import type { PurchaseOutcome } from "./purchase-types";

const delivered: PurchaseOutcome = {
  status: "delivered",
  paymentId: "pay_1",
  service: "Paid data",
  resource: "https://paid.example/data",
  amount: "0.015",
  txHash: `0x${"ab".repeat(32)}`,
  data: { contentType: "application/json", content: { ok: true }, truncated: false },
};

function tracker(): PaymentTracker {
  return new PaymentTracker(new StreamWriter({ framing: "plain", keepAliveMs: 0 }));
}

describe("purchaseOnce", () => {
  it("a retry gets the recorded outcome instead of a second payment", async () => {
    const store = new MemoryIdempotencyStore();
    const attempt = vi.fn(async () => delivered);
    await purchaseOnce({ store, key: "k", tracker: tracker() }, attempt);
    const again = await purchaseOnce({ store, key: "k", tracker: tracker() }, attempt);
    expect(again).toMatchObject({ status: "delivered", txHash: delivered.status === "delivered" ? delivered.txHash : "" });
    expect(attempt).toHaveBeenCalledTimes(1);
  });

  it("an outcome that could not be recorded is unknown: a retry minutes later still does not pay", async () => {
    let nowMs = Date.UTC(2026, 0, 1);
    const store = new MemoryIdempotencyStore(() => nowMs);
    store.complete = async () => {
      throw new Error("store down");
    };
    const log = vi.fn();
    const attempt = vi.fn(async () => delivered);
    await purchaseOnce({ store, key: "k", tracker: tracker(), log }, attempt);
    expect(log).toHaveBeenCalledWith(expect.objectContaining({ event: "intent-record-failed" }));

    nowMs += 5 * 60_000; // past any request, well inside the intent window
    const retry = await purchaseOnce({ store, key: "k", tracker: tracker(), waitMs: 0 }, attempt);
    expect(retry).toMatchObject({ status: "refused" });
    expect((retry as { message: string }).message).toMatch(/outcome is unknown/);
    expect(attempt).toHaveBeenCalledTimes(1);

    nowMs += INTENT_TTL_SECONDS * 1000; // the window has passed: the intent may run again
    await purchaseOnce({ store, key: "k", tracker: tracker(), waitMs: 0 }, attempt);
    expect(attempt).toHaveBeenCalledTimes(2);
  });

  it("a retry after the attempt's instance died is told what the journal shows: paid with its hash, or signed and undecided", async () => {
    const store = new MemoryIdempotencyStore();
    const attempt = vi.fn(async () => delivered);
    const txHash = `0x${"cd".repeat(32)}`;
    // The dead attempt's claim: taken, never completed or released.
    await store.claim("paid", INTENT_TTL_SECONDS, "instance-dead/1");
    const journal = new MemoryJournal();
    await journal.record({
      id: "pay_9",
      status: "quoted",
      at: 1,
      payer: `0x${"1".repeat(40)}`,
      payerKind: "agent",
      requestKey: "key:r",
      resource: "https://paid.example/data",
      method: "GET",
      amount: 40_000n,
      nonce: `0x${"9".repeat(64)}`,
      validBefore: 2_000_000_000n,
    });
    await journal.record({ id: "pay_9", status: "confirmed", at: 2, txHash });
    const earlier = async () => (await journal.ofRequest("key:r", 20))[0];
    const writer = new StreamWriter({ framing: "plain", keepAliveMs: 0 });
    const paid = await purchaseOnce({ store, key: "paid", tracker: new PaymentTracker(writer), waitMs: 0, earlier }, attempt);
    expect(paid).toMatchObject({ status: "failed", txHash, message: expect.stringMatching(/paid 0\.04 USDC .*It was not paid again/) });
    expect(attempt).not.toHaveBeenCalled();
    // The journal row is left as the first attempt wrote it.
    expect(await journal.get("pay_9")).toMatchObject({ status: "confirmed", txHash });

    await store.claim("signed", INTENT_TTL_SECONDS, "instance-dead/2");
    await journal.record({ id: "pay_9", status: "verifying", at: 3, txHash: undefined });
    const undecided = new MemoryJournal();
    await undecided.record({
      id: "pay_10",
      status: "verifying",
      at: 1,
      payer: `0x${"1".repeat(40)}`,
      payerKind: "agent",
      requestKey: "key:s",
      resource: "https://paid.example/data",
      amount: 40_000n,
      nonce: `0x${"a".repeat(64)}`,
      validBefore: 2_000_000_000n,
    });
    const pending = await purchaseOnce(
      { store, key: "signed", tracker: tracker(), waitMs: 0, earlier: async () => (await undecided.ofRequest("key:s", 20))[0] },
      attempt,
    );
    expect(pending).toMatchObject({ status: "pending", paymentId: "pay_10", message: expect.stringMatching(/not decided yet.*not signed again/) });
    expect(attempt).not.toHaveBeenCalled();

    // Nothing signed (or no row): no more than before.
    await store.claim("quoted", INTENT_TTL_SECONDS, "instance-dead/3");
    const none = await purchaseOnce({ store, key: "quoted", tracker: tracker(), waitMs: 0, earlier: async () => undefined }, attempt);
    expect(none).toMatchObject({ status: "refused", message: expect.stringMatching(/outcome is unknown/) });
  });

  it("a pending outcome is recorded, so a retry reports it and does not pay again", async () => {
    const store = new MemoryIdempotencyStore();
    const pending: PurchaseOutcome = { status: "pending", paymentId: "pay_2", message: "Not spent yet.", expiresAt: 1 };
    const attempt = vi.fn(async () => pending);
    await purchaseOnce({ store, key: "k", tracker: tracker() }, attempt);
    expect(await purchaseOnce({ store, key: "k", tracker: tracker() }, attempt)).toMatchObject({ status: "pending", paymentId: "pay_2" });
    expect(attempt).toHaveBeenCalledTimes(1);
  });

  it("an attempt that certainly spent nothing gives the intent back for a retry", async () => {
    const store = new MemoryIdempotencyStore();
    const attempt = vi.fn(async (): Promise<PurchaseOutcome> => ({ status: "failed", paymentId: "pay_3", reason: "limit-exceeded", message: "over" }));
    await purchaseOnce({ store, key: "k", tracker: tracker() }, attempt);
    await purchaseOnce({ store, key: "k", tracker: tracker() }, attempt);
    expect(attempt).toHaveBeenCalledTimes(2);
  });

  describe("a replay shows the recorded outcome in the retry's stream only", () => {
    // The first attempt journals its payment as it happens; a retry is the same payment, so the
    // row its first attempt wrote (status, message, hash) must come out of the retry unchanged.
    const outcomes: PurchaseOutcome[] = [
      delivered,
      { status: "pending", paymentId: "pay_1", message: "Not spent yet.", expiresAt: 1, txHash: `0x${"cd".repeat(32)}` },
      {
        status: "failed",
        paymentId: "pay_1",
        reason: "payment-failed",
        message: "The service failed after the payment settled.",
        txHash: `0x${"ef".repeat(32)}`,
      },
    ];

    it.each(outcomes.map((outcome) => [outcome.status, outcome] as const))(
      "%s: the journal row and its events stay as the first attempt left them",
      async (_, outcome) => {
        const journal = new MemoryJournal();
        const store = new MemoryIdempotencyStore();
        const journaled = (sent: PaymentEvent[] = []) => {
          const writer = new StreamWriter({ framing: "plain", keepAliveMs: 0 });
          const write = writer.payment.bind(writer);
          writer.payment = (payment) => {
            sent.push(payment as PaymentEvent);
            write(payment);
          };
          return new PaymentTracker(writer, { journal, requestKey: "key:test", conversationId: "conversation", now: () => 1_000 });
        };
        const first = journaled();
        await purchaseOnce({ store, key: "k", tracker: first }, async () => {
          first.update({
            id: "pay_1",
            status: "quoted",
            service: "Paid data",
            resource: "https://paid.example/data",
            amount: "0.015",
            message: "Paid data asks 0.015 USDC.",
          });
          const txHash = "txHash" in outcome ? (outcome.txHash as `0x${string}`) : undefined;
          first.update({ id: "pay_1", status: outcome.status as PaymentEvent["status"], message: "As the first attempt saw it.", txHash });
          return outcome;
        });
        expect(await first.recorded()).toBe(true);
        const row = await journal.get("pay_1");
        const events = await journal.events("pay_1");
        expect(row).toMatchObject({ status: outcome.status, message: "As the first attempt saw it." });

        const sent: PaymentEvent[] = [];
        const retry = journaled(sent);
        const attempt = vi.fn(async () => outcome);
        expect(await purchaseOnce({ store, key: "k", tracker: retry }, attempt)).toMatchObject({ status: outcome.status });
        expect(attempt).not.toHaveBeenCalled();
        // The retry's stream and summary show it, saying it is no new payment …
        expect(sent).toEqual([expect.objectContaining({ id: "pay_1", status: outcome.status, message: expect.stringMatching(/earlier attempt/) })]);
        expect(retry.summaries).toEqual([expect.objectContaining({ id: "pay_1", status: outcome.status })]);
        // … and the journal has not moved.
        expect(await retry.recorded()).toBe(true);
        expect(await journal.get("pay_1")).toEqual(row);
        expect(await journal.events("pay_1")).toEqual(events);
      },
    );
  });
});
