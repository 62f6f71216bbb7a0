import { PREFIX_BY_TYPE, type StreamEvent } from "./events";
import type { Framing } from "./framing";

function payloadOf(event: StreamEvent): unknown {
  switch (event.type) {
    case "text":
      return event.text;
    case "payment":
      return event.payment;
    case "error":
      return event.error;
    case "finish":
      return event.finish;
  }
}

/**
 * The protocol line of an event, `<prefix>:<json>`, with no framing. JSON.stringify escapes
 * every control character, so a line never contains a raw newline.
 */
export function encodeLine(event: StreamEvent): string {
  return `${PREFIX_BY_TYPE[event.type]}:${JSON.stringify(payloadOf(event))}`;
}

/** One event, framed: `data: <line>\n\n` for SSE, `<line>\n` for plain. */
export function encodeEvent(event: StreamEvent, framing: Framing): string {
  const line = encodeLine(event);
  return framing === "sse" ? `data: ${line}\n\n` : `${line}\n`;
}

/**
 * A keep-alive. SSE comments are ignored by every reader; the plain framing promises nothing
 * but protocol lines, so it has no keep-alive.
 */
export function encodeKeepAlive(framing: Framing): string {
  return framing === "sse" ? ": keep-alive\n\n" : "";
}
