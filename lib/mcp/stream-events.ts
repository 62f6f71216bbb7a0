/**
 * The chat's stream writer, read in process: the purchase path and the agent loop report
 * through a `StreamWriter` (text, `p:` progress, errors, the one `d:`), and the MCP tools read
 * what they wrote with the protocol's own decoder, so nothing of the stream is re-implemented
 * and every event is checked by the same schemas and ordering rules as in the chat.
 */
import { decodeStream, StreamWriter, type StreamEvent } from "../stream";

export type ObservedWriter = {
  writer: StreamWriter;
  /** Every event written so far, in order. */
  events: StreamEvent[];
  /** Resolves once the writer finished (after its `d:` line) or was cancelled. */
  drained: Promise<void>;
};

export function observeWriter(onEvent: (event: StreamEvent) => void = () => {}): ObservedWriter {
  // Bare lines: no SSE framing and no keep-alives, nobody but this reader sees them.
  const writer = new StreamWriter({ framing: "plain", keepAliveMs: 0 });
  const events: StreamEvent[] = [];
  const drained = (async () => {
    for await (const item of decodeStream(writer.readable)) {
      if (item.kind !== "event") continue;
      events.push(item.event);
      try {
        onEvent(item.event);
      } catch {
        // An observer's failure must not stop the reading: the writer would wait for a reader.
      }
    }
  })();
  return { writer, events, drained };
}
