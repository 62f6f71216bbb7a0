import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  decodeAll,
  decodeStream,
  encodeEvent,
  findSequenceViolations,
  framingForAccept,
  PROTOCOL_VERSION,
  StreamDecoder,
  StreamWriter,
  type DecodedItem,
  type Framing,
  type StreamEvent,
} from "./index";

const txHash = `0x${"ab".repeat(32)}`;
const payTo = `0x${"12".repeat(20)}`;

const sampleEvents: StreamEvent[] = [
  { type: "text", text: 'Héllo, wörld — 天気は晴れ 🌤️\nsecond line "quoted" \\ back' },
  { type: "payment", payment: { id: "pay_1", status: "quoted", amount: "0.05", payTo, service: "Météo" } },
  { type: "payment", payment: { id: "pay_1", status: "confirmed", txHash, explorerUrl: "https://x/tx" } },
  { type: "error", error: { code: "payment_failed", message: "Le paiement a échoué ✗" } },
  {
    type: "finish",
    finish: {
      finishReason: "payment-complete",
      txHash,
      payments: [{ id: "pay_1", status: "confirmed", txHash, amount: "0.05" }],
      protocolVersion: PROTOCOL_VERSION,
    },
  },
];

function eventsOf(items: DecodedItem[]): StreamEvent[] {
  return items.flatMap((item) => (item.kind === "event" ? [item.event] : []));
}

function encodeAll(events: StreamEvent[], framing: Framing): string {
  return events.map((event) => encodeEvent(event, framing)).join("");
}

describe.each<Framing>(["sse", "plain"])("round trip (%s framing)", (framing) => {
  it("decodes every event kind, non-ASCII text included, to the same events", () => {
    const items = decodeAll(encodeAll(sampleEvents, framing));
    expect(items.every((item) => item.kind === "event")).toBe(true);
    expect(eventsOf(items)).toEqual(sampleEvents);
  });

  it("decodes the same events whatever the byte positions the stream is split at", () => {
    const bytes = new TextEncoder().encode(encodeAll(sampleEvents, framing));
    fc.assert(
      fc.property(fc.uniqueArray(fc.integer({ min: 1, max: bytes.length - 1 }), { maxLength: 40 }), (cuts) => {
        const positions = [0, ...[...cuts].sort((a, b) => a - b), bytes.length];
        const decoder = new StreamDecoder();
        const items: DecodedItem[] = [];
        for (let index = 1; index < positions.length; index++) {
          items.push(...decoder.push(bytes.slice(positions[index - 1], positions[index])));
        }
        items.push(...decoder.end());
        expect(eventsOf(items)).toEqual(sampleEvents);
        expect(items.some((item) => item.kind === "malformed")).toBe(false);
      }),
      { numRuns: 300 },
    );
  });
});

describe("framing details", () => {
  it("frames SSE as data lines followed by a blank line, and plain as bare lines", () => {
    const event: StreamEvent = { type: "text", text: "hi" };
    expect(encodeEvent(event, "sse")).toBe('data: 0:"hi"\n\n');
    expect(encodeEvent(event, "plain")).toBe('0:"hi"\n');
  });

  it("accepts CRLF line endings, including a CRLF split across chunks, and ignores comments", () => {
    const decoder = new StreamDecoder();
    const items = [...decoder.push(': keep-alive\r\n\r\ndata: 0:"a"\r'), ...decoder.push('\n\r\n0:"b"\r\n'), ...decoder.end()];
    expect(eventsOf(items)).toEqual([
      { type: "text", text: "a" },
      { type: "text", text: "b" },
    ]);
  });

  it("chooses plain framing only for clients that ask for text/plain", () => {
    expect(framingForAccept(undefined)).toBe("sse");
    expect(framingForAccept("text/event-stream")).toBe("sse");
    expect(framingForAccept("text/plain")).toBe("plain");
    expect(framingForAccept("text/plain;q=0.9, text/event-stream")).toBe("sse");
    expect(framingForAccept("*/*")).toBe("sse");
  });
});

describe("malformed and truncated input", () => {
  it("reports bad lines and goes on decoding the rest", () => {
    const input = ['0:"ok"', "0:{not json", 'x:"unknown prefix"', 'p:{"id":"a"}', "garbage", '0:"after"', ""].join("\n");
    const items = decodeAll(input);
    expect(eventsOf(items)).toEqual([
      { type: "text", text: "ok" },
      { type: "text", text: "after" },
    ]);
    const reasons = items.flatMap((item) => (item.kind === "malformed" ? [item.reason] : []));
    expect(reasons).toHaveLength(4);
    expect(reasons[0]).toMatch(/not valid JSON/);
    expect(reasons[1]).toMatch(/unknown prefix/);
    expect(reasons[2]).toMatch(/invalid payment event/);
    expect(reasons[3]).toMatch(/not a protocol line/);
  });

  it("reports a stream cut in the middle of a line as truncated", () => {
    const whole = encodeAll(sampleEvents.slice(0, 2), "plain");
    const items = decodeAll(whole.slice(0, whole.length - 10));
    expect(eventsOf(items)).toEqual([sampleEvents[0]]);
    expect(items.at(-1)).toMatchObject({ kind: "malformed", reason: "truncated line at end of stream" });
  });

  it("reports a multi-byte character cut at the end of the stream instead of inventing text", () => {
    const bytes = new TextEncoder().encode(encodeEvent({ type: "text", text: "🌤️" }, "sse"));
    const items = decodeAll(bytes.slice(0, 10));
    expect(items).toHaveLength(1);
    expect(items[0]?.kind).toBe("malformed");
  });

  it("checks the ordering rules of a decoded stream", () => {
    expect(findSequenceViolations(sampleEvents)).toEqual([]);
    const backwards: StreamEvent[] = [sampleEvents[2]!, sampleEvents[1]!, sampleEvents[4]!];
    expect(findSequenceViolations(backwards)).toEqual(["status of pay_1 moved from confirmed to quoted"]);
    expect(findSequenceViolations(sampleEvents.slice(0, 3))).toEqual(["expected exactly one finish event, found 0"]);
    expect(findSequenceViolations([sampleEvents[4]!, sampleEvents[0]!])).toContain("no event may follow the finish (d:) event");
  });
});

describe("StreamWriter", () => {
  async function readAll(writer: StreamWriter): Promise<DecodedItem[]> {
    const items: DecodedItem[] = [];
    for await (const item of decodeStream(writer.readable)) items.push(item);
    return items;
  }

  it("writes a valid stream that ends with exactly one finish event", async () => {
    const writer = new StreamWriter({ framing: "sse", keepAliveMs: 0 });
    const reading = readAll(writer);
    writer.text("Paying… ");
    writer.payment({ id: "p1", status: "signing" });
    writer.payment({ id: "p1", status: "confirmed", txHash });
    writer.finish({ finishReason: "payment-complete", txHash, payments: [] });
    const events = eventsOf(await reading);
    expect(events.map((event) => event.type)).toEqual(["text", "payment", "payment", "finish"]);
    expect(findSequenceViolations(events)).toEqual([]);
  });

  it("refuses a status that moves backwards and anything after the finish", () => {
    const writer = new StreamWriter({ framing: "plain" });
    writer.payment({ id: "p1", status: "confirmed", txHash });
    expect(() => writer.payment({ id: "p1", status: "signing" })).toThrow(/moved from confirmed to signing/);
    writer.finish({ finishReason: "stop", txHash: null, payments: [] });
    expect(() => writer.text("late")).toThrow(/already finished/);
  });

  it("sends keep-alive comments while silent, which decoders ignore", async () => {
    const writer = new StreamWriter({ framing: "sse", keepAliveMs: 20 });
    const chunks: string[] = [];
    const reader = writer.readable.getReader();
    const collecting = (async () => {
      const textDecoder = new TextDecoder();
      for (;;) {
        const { done, value } = await reader.read();
        if (done) return;
        chunks.push(textDecoder.decode(value));
      }
    })();
    await new Promise((resolve) => setTimeout(resolve, 80));
    writer.finish({ finishReason: "stop", txHash: null, payments: [] });
    await collecting;
    expect(chunks.filter((chunk) => chunk === ": keep-alive\n\n").length).toBeGreaterThanOrEqual(1);
    expect(eventsOf(decodeAll(chunks.join(""))).map((event) => event.type)).toEqual(["finish"]);
  });

  it("tells its owner when the client goes away and ignores later writes", async () => {
    let cancelled = 0;
    const writer = new StreamWriter({ framing: "sse", onCancel: () => cancelled++ });
    await writer.readable.cancel();
    expect(cancelled).toBe(1);
    expect(writer.clientGone).toBe(true);
    writer.text("nobody reads this");
    writer.finish({ finishReason: "stop", txHash: null, payments: [] });
  });

  it("hands a waiting reader each line at once, and a busy reader everything written meanwhile in one chunk", async () => {
    const writer = new StreamWriter({ framing: "plain", keepAliveMs: 0 });
    const reader = writer.readable.getReader();
    const chunkText = (chunk: Uint8Array | undefined) => new TextDecoder().decode(chunk);
    // A read waiting before anything is written gets the first line alone, as soon as it is written.
    const waiting = reader.read();
    writer.text("first ");
    expect(chunkText((await waiting).value)).toBe(encodeEvent({ type: "text", text: "first " }, "plain"));
    // Written while nobody reads: the next read takes all three lines together.
    writer.text("second ");
    writer.text("third ");
    writer.payment({ id: "pay_1", status: "quoted", amount: "0.01" });
    const together = chunkText((await reader.read()).value);
    expect(decodeAll(together).map((item) => item.kind === "event" && item.event.type)).toEqual(["text", "text", "payment"]);
    // The finish goes out even though no read is waiting, and the stream then ends.
    writer.text("last");
    writer.finish({ finishReason: "stop", txHash: null, payments: [] });
    const tail = decodeAll(chunkText((await reader.read()).value));
    expect(tail.map((item) => item.kind === "event" && item.event.type)).toEqual(["text", "finish"]);
    expect((await reader.read()).done).toBe(true);
  });
});
