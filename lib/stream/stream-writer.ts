import { ErrorEvent, FinishEvent, PaymentEvent, PROTOCOL_VERSION, type StreamEvent } from "./events";
import { BaseError } from "../base-error";
import { encodeEvent, encodeKeepAlive } from "./encode-event";
import type { Framing } from "./framing";
import { SequenceRules } from "./sequence-rules";

export const KEEP_ALIVE_INTERVAL_MS = 15_000;

export type StreamWriterOptions = {
  framing: Framing;
  /** How long the stream may stay silent before a keep-alive comment is sent (SSE only). */
  keepAliveMs?: number;
  /** Called once if the reader goes away (client disconnect). */
  onCancel?: () => void;
};

export type FinishInput = Omit<FinishEvent, "protocolVersion">;

/** Thrown when code tries to write an event that breaks protocol v1; a bug, never user input. */
export class ProtocolViolationError extends BaseError<"protocol_violation"> {
  constructor(violation: string) {
    super("protocol_violation", violation);
  }
}

/**
 * The server half of the stream: validates every event against the protocol schemas and
 * ordering rules, frames it, and sends keep-alives while the server waits. After `finish`
 * the stream is closed; after the client disconnects every write is a no-op.
 */
export class StreamWriter {
  readonly readable: ReadableStream<Uint8Array>;
  private controller: ReadableStreamDefaultController<Uint8Array> | undefined;
  private readonly encoder = new TextEncoder();
  private readonly rules = new SequenceRules();
  private readonly framing: Framing;
  private keepAliveTimer: ReturnType<typeof setInterval> | undefined;
  private lastWriteAt = Date.now();
  private closed = false;
  private cancelled = false;
  /** Lines written since the reader last took a chunk, and whether a read is waiting for them. */
  private pending: string[] = [];
  private readerWaiting = false;

  constructor(options: StreamWriterOptions) {
    this.framing = options.framing;
    // Pulled, not pushed: a line goes out at once when the reader is waiting for one, and lines
    // written while the reader is still busy with the last chunk go out together in its next
    // read. Nothing waits on a timer; under load the server moves fewer, larger chunks through
    // the response (one stream read and one socket write each) instead of one per text delta.
    this.readable = new ReadableStream<Uint8Array>(
      {
        start: (controller) => {
          this.controller = controller;
        },
        pull: () => {
          this.readerWaiting = true;
          this.flush();
        },
        cancel: () => {
          this.cancelled = true;
          this.pending = [];
          this.stopKeepAlive();
          options.onCancel?.();
        },
      },
      { highWaterMark: 0 },
    );
    const keepAliveMs = options.keepAliveMs ?? KEEP_ALIVE_INTERVAL_MS;
    if (this.framing === "sse" && keepAliveMs > 0) {
      this.keepAliveTimer = setInterval(
        () => {
          if (Date.now() - this.lastWriteAt >= keepAliveMs) this.enqueue(encodeKeepAlive(this.framing));
        },
        Math.max(10, Math.floor(keepAliveMs / 3)),
      );
      this.keepAliveTimer.unref?.();
    }
  }

  /** True once `finish` was written or the client went away. */
  get isClosed(): boolean {
    return this.closed || this.cancelled;
  }

  get clientGone(): boolean {
    return this.cancelled;
  }

  text(text: string): void {
    if (text.length > 0) this.send({ type: "text", text });
  }

  payment(payment: PaymentEvent): void {
    this.send({ type: "payment", payment: PaymentEvent.parse({ at: Date.now(), ...payment }) });
  }

  error(error: ErrorEvent): void {
    this.send({ type: "error", error: ErrorEvent.parse(error) });
  }

  /** Writes the one `d:` line and closes the stream. */
  finish(finish: FinishInput): void {
    const event = FinishEvent.parse({ ...finish, protocolVersion: PROTOCOL_VERSION });
    this.send({ type: "finish", finish: event });
    this.closed = true;
    this.stopKeepAlive();
    if (!this.cancelled) {
      this.flush(true);
      this.controller?.close();
    }
  }

  /** The status last sent for a progress id, so callers can avoid moving backwards. */
  statusOf(id: string) {
    return this.rules.statusOf(id);
  }

  private send(event: StreamEvent): void {
    if (this.closed) throw new ProtocolViolationError("the stream has already finished");
    const violation = this.rules.check(event);
    if (violation) throw new ProtocolViolationError(violation);
    this.rules.record(event);
    this.enqueue(encodeEvent(event, this.framing));
  }

  private enqueue(text: string): void {
    if (this.cancelled || !this.controller || text.length === 0) return;
    this.lastWriteAt = Date.now();
    this.pending.push(text);
    if (this.readerWaiting) this.flush();
  }

  /** Hands the pending lines to the stream as one chunk: to a waiting reader, or (at the end) to its queue. */
  private flush(evenIfNobodyWaits = false): void {
    if (this.pending.length === 0 || this.cancelled || !this.controller) return;
    if (!this.readerWaiting && !evenIfNobodyWaits) return;
    const text = this.pending.length === 1 ? (this.pending[0] as string) : this.pending.join("");
    this.pending = [];
    this.readerWaiting = false;
    try {
      this.controller.enqueue(this.encoder.encode(text));
    } catch {
      // The stream was torn down between the check and the write: same as a disconnect.
      this.cancelled = true;
    }
  }

  private stopKeepAlive(): void {
    if (this.keepAliveTimer) clearInterval(this.keepAliveTimer);
    this.keepAliveTimer = undefined;
  }
}
