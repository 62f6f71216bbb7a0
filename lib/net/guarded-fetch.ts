import "server-only";
/**
 * The one way the server makes outbound requests to URLs chosen by a model or by discovery
 * data (docs/decisions.md, "Outbound requests"). A fetch-compatible function, so it can be handed to
 * `wrapFetchWithPayment`, that:
 *
 * - fetches http(s) URLs without credentials only;
 * - checks the resolved address at connect time (see `guarded-connector.ts`) and refuses
 *   non-public addresses unless allowlisted, and the payment network's own servers always;
 * - follows redirects itself, re-checking every hop, up to `maxRedirects`;
 * - bounds the total time (connect, redirects and body) and the decoded body size.
 *
 * The body is read fully (up to the cap) before the Response is returned, so every failure
 * (including "too large" and a timeout while reading) rejects the call itself instead of
 * surfacing later in whoever reads the body. Paid services answer with small JSON documents,
 * so nothing is lost by not streaming. The one exception is `body: "streamed"`, for an answer
 * that lives as long as a session (an MCP server's SSE event stream): the body is handed on as
 * a stream under the same byte bound, and the time bound runs until the stream ends.
 */
import { Agent } from "undici";
import { z } from "zod";
import { isBadPort } from "./bad-ports";
import { decodedBody } from "./content-decoding";
import { createGuardedConnector } from "./guarded-connector";
import type { OutboundLookup } from "./outbound-lookup";
import { GuardedFetchError } from "./guarded-fetch-error";
import { createHopSender, discardBody, type Hop, type HopAnswer, type HopProgress } from "./hop-request";
import { compileInfrastructure } from "./infrastructure";
import { compileAllowlist } from "./outbound-allowlist";
import { byteStreamOf, cappedStream } from "./capped-stream";
import { assertOutboundUrl, parseOutboundUrl } from "./outbound-url";
import { readCappedChunks } from "./read-capped-body";
import { boundedSignal } from "../timeout";

export { GuardedFetchError, GUARDED_FETCH_ERROR_CODES, type GuardedFetchErrorCode } from "./guarded-fetch-error";
export { isPublicAddress } from "./public-address";
export { parseAllowlist } from "./outbound-allowlist";
export type { OutboundLookup, ResolvedAddress } from "./outbound-lookup";

/** A fetch-compatible function (same call shape as `globalThis.fetch`). */
export type GuardedFetch = (input: string | URL | Request, init?: RequestInit) => Promise<Response>;

export const GUARDED_FETCH_DEFAULTS = {
  timeoutMs: 10_000,
  maxResponseBytes: 1024 * 1024,
  maxRedirects: 3,
} as const;

const GuardedFetchOptions = z.object({
  /** Exceptions to the non-public address rule; see `outbound-allowlist.ts` for the forms. */
  allowlist: z.array(z.string()).readonly().default([]),
  /**
   * URLs of servers never reached, whatever the allowlist says: the payment network's own (chain
   * RPC, facilitator), on every path of their origin, by any spelling (see `infrastructure.ts`).
   */
  infrastructure: z.array(z.string()).readonly().default([]),
  timeoutMs: z.number().int().positive().max(600_000).default(GUARDED_FETCH_DEFAULTS.timeoutMs),
  maxResponseBytes: z.number().int().positive().default(GUARDED_FETCH_DEFAULTS.maxResponseBytes),
  maxRedirects: z.number().int().min(0).max(20).default(GUARDED_FETCH_DEFAULTS.maxRedirects),
  lookup: z.custom<OutboundLookup>((value) => typeof value === "function").optional(),
  /**
   * `buffered`: every answer read whole before it is returned. `streamed`: the body is handed on
   * as it arrives (bounded by `maxResponseBytes`, and `timeoutMs` from the request to the
   * stream's end), for event streams only.
   */
  body: z.enum(["buffered", "streamed"]).default("buffered"),
});
export type GuardedFetchOptions = z.input<typeof GuardedFetchOptions>;

const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);
const NULL_BODY_STATUSES = new Set([101, 103, 204, 205, 304]);
const MAX_CONNECT_TIMEOUT_MS = 10_000;
// What the fetch standard drops when a redirect turns a request into a body-less GET.
const REQUEST_BODY_HEADERS = ["content-type", "content-length", "content-encoding", "content-language", "content-location"];
// Credentials and payment proofs are meant for the origin they were sent to; a redirect to
// another origin must not carry them (a paid service redirecting elsewhere would otherwise hand
// the signed payment to a third party).
const ORIGIN_BOUND_HEADERS = ["authorization", "proxy-authorization", "cookie", "payment-signature", "x-payment"];

type Signals = {
  caller: AbortSignal;
  /** Whether the time bound ran out (the caller's abort aside). */
  timedOut: () => boolean;
  combined: AbortSignal;
  /** Called when a streamed body is handed on; returns what releases the time bound when it ends. */
  handOver: () => () => void;
};

function toGuardedError(error: unknown, signals: Signals, host: string, dispatched: boolean): unknown {
  const guarded = GuardedFetchError.find(error);
  if (guarded) return guarded;
  // A caller's own abort keeps fetch's usual behaviour: reject with the caller's reason.
  if (signals.caller.aborted) return signals.caller.reason;
  // Refused before the request was handed to the dispatcher (a port on the Fetch standard's
  // bad-port list, a malformed header): nothing can have been sent.
  if (!dispatched) return new GuardedFetchError(signals.timedOut() ? "timeout" : "connect_failed", { host, cause: error, requestMayHaveArrived: false });
  if (signals.timedOut()) return new GuardedFetchError("timeout", { host, cause: error });
  // Not raised by our connector, so a socket existed: a reset, a closed connection or a garbled
  // answer after (part of) the request may have been written.
  return new GuardedFetchError("connection_lost", { host, cause: error });
}

function nextHop(hop: Hop, status: number, url: URL): Hop {
  const headers = new Headers(hop.headers);
  let { method, body } = hop;
  const becomesGet = ((status === 301 || status === 302) && method === "POST") || (status === 303 && method !== "HEAD" && method !== "GET");
  if (becomesGet) {
    method = "GET";
    body = undefined;
    for (const name of REQUEST_BODY_HEADERS) headers.delete(name);
  }
  if (url.origin !== hop.url.origin) {
    for (const name of ORIGIN_BOUND_HEADERS) headers.delete(name);
  }
  return { url, method, headers, body };
}

/**
 * Creates the guarded fetch. One instance keeps one connection pool; create it once per
 * process (or per configuration) rather than per request.
 *
 * @example
 * const guardedFetch = createGuardedFetch({ allowlist: parseAllowlist(env.OUTBOUND_ALLOWLIST) });
 * const response = await guardedFetch("https://api.example.com/paid", { method: "POST", body: "{}" });
 *
 * @example
 * // Hand it to x402 so that paid requests are guarded too.
 * const fetchWithPayment = wrapFetchWithPayment(guardedFetch, client);
 */
export function createGuardedFetch(options: GuardedFetchOptions = {}): GuardedFetch {
  const settings = GuardedFetchOptions.parse(options);
  const agent = new Agent({
    connect: createGuardedConnector({
      allowlist: compileAllowlist(settings.allowlist),
      infrastructure: settings.infrastructure.length > 0 ? compileInfrastructure(settings.infrastructure) : undefined,
      lookup: settings.lookup,
      connectTimeoutMs: Math.min(settings.timeoutMs, MAX_CONNECT_TIMEOUT_MS),
    }),
  });

  const sendHop = createHopSender(agent);

  async function send(hop: Hop, signals: Signals): Promise<HopAnswer> {
    // Whether the dispatcher took the request: before that, nothing can have been sent.
    const progress: HopProgress = { dispatched: false };
    try {
      // Refused as fetch refuses it: a port of another protocol is never sent an HTTP request.
      if (isBadPort(hop.url)) throw new TypeError("bad port");
      return await sendHop(hop, signals.combined, progress);
    } catch (error) {
      throw toGuardedError(error, signals, hop.url.host, progress.dispatched);
    }
  }

  async function toResponse(upstream: HopAnswer, hop: Hop, redirected: boolean, signals: Signals) {
    const host = hop.url.host;
    const header = (name: string) => upstream.headers.find(([key]) => key === name)?.[1];
    const declaredLength = Number(header("content-length") ?? Number.NaN);
    const nullBody = NULL_BODY_STATUSES.has(upstream.status) || hop.method === "HEAD";
    let bytes: Uint8Array<ArrayBuffer> | ReadableStream<Uint8Array> | null = null;
    let response: Response;
    try {
      if (declaredLength > settings.maxResponseBytes) {
        throw new GuardedFetchError("response_too_large", { host });
      }
      if (nullBody) upstream.body.resume();
      else {
        const body = decodedBody(upstream.body, header("content-encoding"));
        bytes =
          settings.body === "streamed"
            ? cappedStream(byteStreamOf(body), {
                maxBytes: settings.maxResponseBytes,
                host,
                describeError: (error) => toGuardedError(error, signals, host, true),
                onEnd: signals.handOver(),
              })
            : await readCappedChunks(body, settings.maxResponseBytes, host);
      }
      // The body is complete and already decoded; these would describe a different body. A
      // status line or header a Response refuses is a garbled answer, like one fetch refuses.
      const headers = upstream.headers.filter(([name]) => name !== "content-encoding" && name !== "content-length");
      response = new Response(bytes, { status: upstream.status, statusText: upstream.statusText, headers });
    } catch (error) {
      discardBody(upstream.body);
      if (bytes instanceof ReadableStream) await bytes.cancel().catch(() => undefined);
      throw toGuardedError(error, signals, host, true);
    }

    // A constructed Response has an empty url; x402 clients read `response.url` to name the
    // resource they pay for, so report the final URL like fetch would.
    Object.defineProperty(response, "url", { value: hop.url.href });
    Object.defineProperty(response, "redirected", { value: redirected });
    return response;
  }

  async function fetchHops(request: Request, firstUrl: URL, signals: Signals): Promise<Response> {
    const body = request.body ? new Uint8Array(await request.arrayBuffer()) : undefined;

    let hop: Hop = { url: firstUrl, method: request.method, headers: new Headers(request.headers), body };
    let answered = false;
    for (let redirects = 0; ; redirects += 1) {
      try {
        const upstream = await send(hop, signals);
        answered = true;
        const location = upstream.headers.find(([name]) => name === "location")?.[1] ?? null;
        if (!REDIRECT_STATUSES.has(upstream.status) || location === null || request.redirect === "manual") {
          return await toResponse(upstream, hop, redirects > 0, signals);
        }
        discardBody(upstream.body);
        // `redirect: "error"` is honoured as a limit of zero redirects.
        if (request.redirect === "error" || redirects >= settings.maxRedirects) {
          throw new GuardedFetchError("too_many_redirects", { host: hop.url.host });
        }
        const nextUrl = parseOutboundUrl(location, hop.url);
        assertOutboundUrl(nextUrl);
        hop = nextHop(hop, upstream.status, nextUrl);
      } catch (error) {
        // Once a hop answered, the request reached a server, whatever happens next.
        throw answered && GuardedFetchError.isInstance(error) ? error.afterEarlierHop() : error;
      }
    }
  }

  return async function guardedFetch(input, init) {
    // URL checks come first: `new Request` itself throws on credentials, with the URL in the message.
    const firstUrl = parseOutboundUrl(input);
    assertOutboundUrl(firstUrl);
    const request = new Request(input, init);
    // The caller's own signal, not the Request's copy: undici's copy follows the original only
    // while the Request lives, and a streamed body outlives it here.
    const caller = init?.signal ?? (input instanceof Request ? input.signal : request.signal);
    if (caller.aborted) throw caller.reason;

    // A body read whole is done when this returns, so the bound is released then (timer and
    // caller listener); a streamed body takes the bound with it and releases it when it ends.
    const timeout = boundedSignal(caller, settings.timeoutMs);
    let handedOver = false;
    const handOver = () => {
      handedOver = true;
      return timeout.clear;
    };
    try {
      return await fetchHops(request, firstUrl, { caller, timedOut: timeout.timedOut, combined: timeout.signal, handOver });
    } finally {
      if (!handedOver) timeout.clear();
    }
  };
}
