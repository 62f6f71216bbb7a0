/**
 * At most one payment per intent, including when the outcome cannot be recorded: the claim
 * then stands for the whole window, so a retry is told the outcome is unknown and never pays.
 */
import { describe, expect, it, vi } from "vitest";
import { MemoryIdempotencyStore } from "../../store/memory-idempotency-store";
import { StreamWriter } from "../../stream";
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
});
