/**
 * A scripted stand-in for `POST /api/chat`, installed in the page before the app loads: it
 * replaces `fetch` for that one path and answers each request with the next scripted response,
 * streaming its chunks with delays (so progressive rendering and Stop can be tested) and
 * honouring the request's AbortSignal. Every request's headers and body are recorded.
 * Everything else (the page, /api/network, the local chain) stays real.
 */
import type { Page } from "playwright-core";
import { encodeEvent, PROTOCOL_VERSION, type FinishEvent, type StreamEvent } from "../../../lib/stream";

/**
 * `gate`: hold this chunk until the test opens the gate (`openChatGate`), so a test can look at
 * the page mid-stream however slowly the machine renders.
 */
export type ScriptedChunk = { delayMs: number; data: string; gate?: boolean };

export type ScriptedResponse = {
  status: number;
  headers: Record<string, string>;
  chunks: ScriptedChunk[];
  /** Keep the stream open after the last chunk, until the client aborts. */
  holdOpen?: boolean;
  /** Wait this long before answering at all (the request is "in flight"). */
  delayHeadersMs?: number;
};

export type RecordedRequest = { headers: Record<string, string>; body: string | null };

const SSE_HEADERS = { "Content-Type": "text/event-stream; charset=utf-8", "Cache-Control": "no-cache, no-transform" };

/** A 200 SSE response streaming the events, `delayMs` apart. */
export function streamResponse(events: StreamEvent[], options: { delayMs?: number; holdOpen?: boolean } = {}): ScriptedResponse {
  return {
    status: 200,
    headers: SSE_HEADERS,
    chunks: events.map((event) => ({ delayMs: options.delayMs ?? 20, data: encodeEvent(event, "sse") })),
    holdOpen: options.holdOpen,
  };
}

/** Splits a text into `0:` events of a few characters, as a model streams. */
export function textEvents(text: string, size = 6): StreamEvent[] {
  const events: StreamEvent[] = [];
  for (let index = 0; index < text.length; index += size) events.push({ type: "text", text: text.slice(index, index + size) });
  return events;
}

export function finishEvent(finish: Omit<FinishEvent, "protocolVersion">): StreamEvent {
  return { type: "finish", finish: { ...finish, protocolVersion: PROTOCOL_VERSION } };
}

export function problemResponse(status: number, detail: string, headers: Record<string, string> = {}): ScriptedResponse {
  return {
    status,
    headers: { "Content-Type": "application/problem+json", ...headers },
    chunks: [{ delayMs: 0, data: JSON.stringify({ type: "about:blank", title: "Problem", status, detail }) }],
  };
}

export async function installFakeChat(page: Page, responses: ScriptedResponse[]): Promise<void> {
  await page.addInitScript((scripts: ScriptedResponse[]) => {
    type Recorded = { headers: Record<string, string>; body: string | null };
    const state = window as unknown as { __chatRequests: Recorded[]; __chatGateOpen: boolean };
    state.__chatRequests = [];
    state.__chatGateOpen = false;
    const queue = scripts.slice();
    const original = window.fetch.bind(window);

    const wait = (ms: number, signal: AbortSignal | null | undefined) =>
      new Promise<void>((resolve, reject) => {
        if (signal?.aborted) return reject(new DOMException("Aborted", "AbortError"));
        const timer = setTimeout(resolve, ms);
        signal?.addEventListener(
          "abort",
          () => {
            clearTimeout(timer);
            reject(new DOMException("Aborted", "AbortError"));
          },
          { once: true },
        );
      });

    window.fetch = async (input: RequestInfo | URL, init?: RequestInit) => {
      const url = typeof input === "string" ? input : input instanceof URL ? input.href : input.url;
      if (new URL(url, location.href).pathname !== "/api/chat") return original(input, init);
      state.__chatRequests.push({
        headers: Object.fromEntries(new Headers(init?.headers).entries()),
        body: typeof init?.body === "string" ? init.body : null,
      });
      const script = queue.shift();
      if (!script) return new Response("no scripted response left", { status: 500 });
      const signal = init?.signal;
      if (script.delayHeadersMs) await wait(script.delayHeadersMs, signal);
      const encoder = new TextEncoder();
      const body = new ReadableStream<Uint8Array>({
        async start(controller) {
          try {
            for (const chunk of script.chunks) {
              await wait(chunk.delayMs, signal);
              while (chunk.gate && !state.__chatGateOpen) await wait(10, signal);
              controller.enqueue(encoder.encode(chunk.data));
            }
            if (script.holdOpen) await wait(3_600_000, signal);
            controller.close();
          } catch (error) {
            try {
              controller.error(error);
            } catch {
              // Already closed.
            }
          }
        },
      });
      return new Response(body, { status: script.status, headers: script.headers });
    };
  }, responses);
}

/** Opens the gate a `gate` chunk waits at (see ScriptedChunk). */
export async function openChatGate(page: Page): Promise<void> {
  await page.evaluate(() => {
    (window as unknown as { __chatGateOpen: boolean }).__chatGateOpen = true;
  });
}

export async function recordedRequests(page: Page): Promise<RecordedRequest[]> {
  return page.evaluate(() => (window as unknown as { __chatRequests: { headers: Record<string, string>; body: string | null }[] }).__chatRequests);
}
