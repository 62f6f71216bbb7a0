import { parseLinePayload, type StreamEvent } from "./events";

/** What the decoder yields: an event, or a line it could not read (the stream goes on). */
export type DecodedItem = { kind: "event"; event: StreamEvent } | { kind: "malformed"; line: string; reason: string };

/** Lines longer than this are reported and skipped, so a hostile peer cannot grow memory. */
const MAX_LINE_CHARS = 1_048_576;
const BARE_LINE = /^([0-9a-z]):/;

/**
 * A streaming decoder for both framings (SSE `data:` events and bare lines), in the browser
 * and in Node. Chunks may split anywhere: inside a line, a multi-byte character, or a CRLF.
 * Malformed lines become `malformed` items instead of ending the stream.
 *
 * @example
 * const decoder = new StreamDecoder();
 * const items = [...decoder.push(chunk), ...decoder.end()];
 */
export class StreamDecoder {
  private readonly textDecoder = new TextDecoder("utf-8");
  private buffer = "";
  private skipNextLineFeed = false;
  private overlong = false;
  private sseData: string[] = [];

  /** Feeds one chunk; returns the items completed by it. */
  push(chunk: Uint8Array | string): DecodedItem[] {
    const text = typeof chunk === "string" ? chunk : this.textDecoder.decode(chunk, { stream: true });
    return this.consume(text);
  }

  /** Signals the end of input; returns items still pending, reporting truncation. */
  end(): DecodedItem[] {
    const items = this.consume(this.textDecoder.decode());
    if (this.buffer.length > 0) {
      const rest = this.buffer;
      this.buffer = "";
      items.push(...this.handleLine(rest, true));
    }
    if (this.sseData.length > 0) items.push(...this.dispatchSse(true));
    return items;
  }

  private consume(text: string): DecodedItem[] {
    const items: DecodedItem[] = [];
    let start = 0;
    for (let index = 0; index < text.length; index++) {
      const char = text.charCodeAt(index);
      if (char !== 10 && char !== 13) continue;
      if (char === 10 && this.skipNextLineFeed && index === start && this.buffer.length === 0) {
        // The LF of a CRLF whose CR ended the previous chunk or line.
        this.skipNextLineFeed = false;
        start = index + 1;
        continue;
      }
      const line = this.buffer + text.slice(start, index);
      this.buffer = "";
      this.skipNextLineFeed = char === 13;
      start = index + 1;
      if (this.overlong) {
        this.overlong = false;
        continue;
      }
      items.push(...this.handleLine(line, false));
    }
    if (start < text.length) {
      this.skipNextLineFeed = false;
      if (!this.overlong) this.buffer += text.slice(start);
      if (this.buffer.length > MAX_LINE_CHARS) {
        items.push({ kind: "malformed", line: this.buffer.slice(0, 80), reason: "line too long" });
        this.buffer = "";
        this.overlong = true;
      }
    }
    return items;
  }

  private handleLine(line: string, atEnd: boolean): DecodedItem[] {
    if (line === "") return this.dispatchSse(false);
    if (line.startsWith(":")) return []; // SSE comment (keep-alive).
    if (line.startsWith("data:")) {
      const value = line.slice(5);
      this.sseData.push(value.startsWith(" ") ? value.slice(1) : value);
      return [];
    }
    if (BARE_LINE.test(line)) return [decodeProtocolLine(line, atEnd)];
    if (/^(event|id|retry):/.test(line)) return []; // SSE fields we do not use.
    return [{ kind: "malformed", line: line.slice(0, 200), reason: "not a protocol line" }];
  }

  private dispatchSse(atEnd: boolean): DecodedItem[] {
    if (this.sseData.length === 0) return [];
    const data = this.sseData.join("\n");
    this.sseData = [];
    return [decodeProtocolLine(data, atEnd)];
  }
}

function decodeProtocolLine(line: string, atEnd: boolean): DecodedItem {
  const match = BARE_LINE.exec(line);
  if (!match?.[1]) return { kind: "malformed", line: line.slice(0, 200), reason: "missing prefix" };
  let payload: unknown;
  try {
    payload = JSON.parse(line.slice(2));
  } catch {
    const reason = atEnd ? "truncated line at end of stream" : "payload is not valid JSON";
    return { kind: "malformed", line: line.slice(0, 200), reason };
  }
  const parsed = parseLinePayload(match[1], payload);
  return parsed.success ? { kind: "event", event: parsed.event } : { kind: "malformed", line: line.slice(0, 200), reason: parsed.reason };
}

/** Decodes a whole response body as it arrives. */
export async function* decodeStream(body: ReadableStream<Uint8Array>): AsyncGenerator<DecodedItem> {
  const decoder = new StreamDecoder();
  const reader = body.getReader();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      yield* decoder.push(value);
    }
    yield* decoder.end();
  } finally {
    reader.releaseLock();
  }
}

/** Decodes a complete stream held in memory (tests, CLI). */
export function decodeAll(input: Uint8Array | string): DecodedItem[] {
  const decoder = new StreamDecoder();
  return [...decoder.push(input), ...decoder.end()];
}
