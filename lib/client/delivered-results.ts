/**
 * The answers this tab saw delivered, so the payment history can show a payment's result card.
 * The server records payments, not what services answered (docs/decisions.md, "Result cards"):
 * this copy lives in sessionStorage, so it ends with the tab, and holds the last MAX_KEPT
 * answers, each within the stream's own bound (delivered-result.ts), so at most a few hundred
 * kB. Read back through zod: storage is the user's to edit.
 */
import { z } from "zod";
import { DeliveredResult } from "@/lib/stream/delivered-result";

const STORAGE_KEY = "x402-agent.results.v1";
const MAX_KEPT = 20;

const KeptResult = z.object({
  id: z.string().max(128),
  service: z.string().max(200),
  resource: z.string().max(2_000).optional(),
  result: DeliveredResult,
});
export type KeptResult = z.infer<typeof KeptResult>;

let cached: KeptResult[] | undefined;

function read(): KeptResult[] {
  if (cached) return cached;
  let kept: KeptResult[] = [];
  try {
    const raw = window.sessionStorage.getItem(STORAGE_KEY);
    const parsed = raw === null ? undefined : z.array(KeptResult).max(MAX_KEPT).safeParse(JSON.parse(raw));
    if (parsed?.success) kept = parsed.data;
  } catch {
    // Unreadable or blocked storage: nothing kept.
  }
  cached = kept;
  return kept;
}

/** Keeps an answer (newest first); one already kept for the same payment is replaced. */
export function rememberResult(entry: KeptResult): void {
  if (typeof window === "undefined") return;
  const previous = read();
  if (previous[0]?.id === entry.id && previous[0].result === entry.result) return;
  const next = [entry, ...previous.filter((item) => item.id !== entry.id)].slice(0, MAX_KEPT);
  cached = next;
  try {
    window.sessionStorage.setItem(STORAGE_KEY, JSON.stringify(next));
  } catch {
    // Storage full or disabled: the answer is still kept for this page.
  }
}

/** The answer this tab saw for a payment, if it still has it. */
export function recallResult(id: string): KeptResult | undefined {
  if (typeof window === "undefined") return undefined;
  return read().find((item) => item.id === id);
}
