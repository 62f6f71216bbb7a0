/**
 * This browser's payment receipts, kept in localStorage. They are a convenience record of
 * what this page saw settle; the server's ledger (per payer, rolling 24 h) is the authority.
 */
import { z } from "zod";
import { parseUsdc } from "@/lib/money";
import { createLocalStore, useLocalStore } from "./local-store";

export const Receipt = z.object({
  paymentId: z.string(),
  amount: z.string(),
  /** A metered (`upto`) payment's signed ceiling; `amount` is what it settled. */
  ceiling: z.string().optional(),
  /** Set when a metered payment settled more than the service's own metering says. */
  settlementFlag: z.string().optional(),
  service: z.string(),
  resource: z.string().optional(),
  txHash: z.string(),
  network: z.string().optional(),
  /** "agent" for the agent wallet, otherwise the paying wallet's address. */
  payer: z.string(),
  explorerUrl: z.string().optional(),
  /** Milliseconds since the epoch when this page saw the payment confirmed. */
  at: z.number(),
});
export type Receipt = z.infer<typeof Receipt>;

const MAX_RECEIPTS = 200;
const EMPTY: Receipt[] = [];

export const receiptsStore = createLocalStore("x402-agent.receipts.v1", z.array(Receipt), EMPTY);

/** Adds a receipt unless one with the same payment and transaction is already kept. */
export function addReceipt(receipt: Receipt): void {
  receiptsStore.set((previous) => {
    if (previous.some((item) => item.txHash === receipt.txHash && item.paymentId === receipt.paymentId)) return previous;
    return [receipt, ...previous].slice(0, MAX_RECEIPTS);
  });
}

export function clearReceipts(): void {
  receiptsStore.set(EMPTY);
}

export function useReceipts(): Receipt[] {
  return useLocalStore(receiptsStore, EMPTY);
}

export const DAY_MS = 24 * 60 * 60 * 1000;

/** Base units spent by this browser's receipts in the rolling 24 h window ending at `now`. */
export function spentInLastDay(receipts: readonly Receipt[], now: number): bigint {
  let total = 0n;
  for (const receipt of receipts) {
    if (now - receipt.at < DAY_MS) total += parseUsdc(receipt.amount) ?? 0n;
  }
  return total;
}
