/**
 * One discover-and-buy chat turn over HTTP, timed from the client: response headers (first
 * byte), first body chunk, first `p:`, the settlement `p:` (status `confirmed`), and `d:`.
 * Lines are read with the project's own stream decoder.
 */
import { StreamDecoder, type StreamEvent } from "../../lib/stream";

export const BUY_MESSAGE = "What's the weather in Lisbon?";

export type TurnTiming = {
  ok: boolean;
  status: number;
  /** Why the turn counts as an error (non-200, e: line, wrong finish reason, ...). */
  error?: string;
  /** All in milliseconds from the moment the request was sent. */
  firstByteMs: number;
  firstChunkMs: number;
  firstPaymentMs: number;
  settledMs: number;
  finishMs: number;
  txHash?: string;
  finishReason?: string;
  /** `at` timestamps (server clock, epoch ms) of the payment events, to split server-side phases. */
  paymentStatuses: { status: string; id: string; at: number; receivedMs: number }[];
  sentAtEpochMs: number;
  /** Protocol lines in the response, and how many of them were text (`0:`). */
  events: number;
  textEvents: number;
  /** Body bytes and the number of chunks they arrived in. */
  bytes: number;
  chunks: number;
};

let sequence = 0;
const runId = `${process.pid.toString(36)}${Date.now().toString(36)}`;

/** A fresh Idempotency-Key per turn: the app treats a repeated conversation as a retry and would not pay again. */
export function nextIdempotencyKey(): string {
  sequence += 1;
  return `bench-${runId}-${sequence}`;
}

export async function chatTurn(baseUrl: string, options: { message?: string; timeoutMs?: number } = {}): Promise<TurnTiming> {
  const timing: TurnTiming = {
    ok: false,
    status: 0,
    firstByteMs: Number.NaN,
    firstChunkMs: Number.NaN,
    firstPaymentMs: Number.NaN,
    settledMs: Number.NaN,
    finishMs: Number.NaN,
    paymentStatuses: [],
    sentAtEpochMs: Date.now(),
    events: 0,
    textEvents: 0,
    bytes: 0,
    chunks: 0,
  };
  const started = performance.now();
  const elapsed = () => performance.now() - started;
  const errors: string[] = [];
  try {
    const response = await fetch(`${baseUrl}/api/chat`, {
      method: "POST",
      headers: { "content-type": "application/json", accept: "text/event-stream", "idempotency-key": nextIdempotencyKey() },
      body: JSON.stringify({ messages: [{ role: "user", content: options.message ?? BUY_MESSAGE }] }),
      signal: AbortSignal.timeout(options.timeoutMs ?? 60_000),
    });
    timing.firstByteMs = elapsed();
    timing.status = response.status;
    if (response.status !== 200 || !response.body) {
      const body = await response.text().catch(() => "");
      timing.error = `HTTP ${response.status} ${body.slice(0, 200)}`;
      return timing;
    }
    const decoder = new StreamDecoder();
    const reader = response.body.getReader();
    const handle = (event: StreamEvent) => {
      const at = elapsed();
      timing.events += 1;
      if (event.type === "text") timing.textEvents += 1;
      if (event.type === "payment") {
        timing.paymentStatuses.push({ status: event.payment.status, id: event.payment.id, at: event.payment.at ?? Number.NaN, receivedMs: at });
        if (Number.isNaN(timing.firstPaymentMs)) timing.firstPaymentMs = at;
        if (event.payment.status === "confirmed" && Number.isNaN(timing.settledMs)) {
          timing.settledMs = at;
          timing.txHash = event.payment.txHash ?? undefined;
        }
      } else if (event.type === "error") {
        errors.push(`e: ${event.error.code}`);
      } else if (event.type === "finish") {
        timing.finishMs = at;
        timing.finishReason = event.finish.finishReason;
      }
    };
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      if (Number.isNaN(timing.firstChunkMs)) timing.firstChunkMs = elapsed();
      timing.bytes += value.byteLength;
      timing.chunks += 1;
      for (const item of decoder.push(value)) {
        if (item.kind === "event") handle(item.event);
        else errors.push(`malformed line: ${item.reason}`);
      }
    }
    for (const item of decoder.end()) {
      if (item.kind === "event") handle(item.event);
      else errors.push(`malformed line: ${item.reason}`);
    }
    if (Number.isNaN(timing.finishMs)) errors.push("no d: line");
    else if (timing.finishReason !== "payment-complete") errors.push(`finish reason ${timing.finishReason}`);
    if (Number.isNaN(timing.settledMs)) errors.push("no settlement p: line");
  } catch (error) {
    errors.push(error instanceof Error ? `${error.name}: ${error.message}` : String(error));
  }
  timing.ok = errors.length === 0;
  if (errors.length > 0) timing.error = errors.join("; ");
  return timing;
}

/** Turns that reported a settlement hash another turn already reported: a replay, not a new payment. */
export function duplicateSettlements(turns: readonly TurnTiming[]): number {
  const seen = new Set<string>();
  let duplicates = 0;
  for (const turn of turns) {
    if (!turn.txHash) continue;
    if (seen.has(turn.txHash)) duplicates += 1;
    seen.add(turn.txHash);
  }
  return duplicates;
}
