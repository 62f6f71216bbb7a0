/**
 * One hop of a guarded request, sent with undici's dispatcher API (`request`) rather than its
 * `fetch`: the guarded fetch already does what `fetch` adds on top (redirects, URL and origin
 * rules, bounds, a `Response` for its caller), and `fetch`'s machinery (its own `Request`,
 * headers lists, body streams and `Response`) cost about 0.2 ms of CPU per request here, twice
 * what the dispatcher itself takes (docs/decisions.md, "Outbound requests").
 *
 * What `fetch` would have sent and read is kept: its default headers where the caller set none,
 * its bad-port rule (bad-ports.ts) and its content decoding (content-decoding.ts).
 */
import type { Readable } from "node:stream";
import type { Agent, Dispatcher } from "undici";
import { ACCEPTED_ENCODINGS } from "./content-decoding";

/** A request as one hop sends it: headers already checked (a `Headers`), a body already read. */
export type Hop = { url: URL; method: string; headers: Headers; body: Uint8Array | undefined };

/** The answer to one hop: its status, its headers in order, and its body as it arrives (not decoded). */
export type HopAnswer = { status: number; statusText: string; headers: [string, string][]; body: Readable };

/** Per request: set once the dispatcher took it (before that, nothing can have been sent). */
export type HopProgress = { dispatched: boolean };

/** The headers `fetch` adds where the caller set none: what servers see from any fetch client. */
const DEFAULT_HEADERS: [string, string][] = [
  ["accept", "*/*"],
  ["accept-language", "*"],
  ["accept-encoding", ACCEPTED_ENCODINGS],
  ["user-agent", "undici"],
];

function headerList(headers: Headers): string[] {
  const list: string[] = [];
  for (const [name, value] of headers) list.push(name, value);
  for (const [name, value] of DEFAULT_HEADERS) if (!headers.has(name)) list.push(name, value);
  return list;
}

function answerHeaders(headers: Record<string, string | string[] | undefined>): [string, string][] {
  const entries: [string, string][] = [];
  for (const [name, value] of Object.entries(headers)) {
    if (Array.isArray(value)) for (const each of value) entries.push([name, each]);
    else if (value !== undefined) entries.push([name, value]);
  }
  return entries;
}

/**
 * A sender of hops through `agent`. One composed dispatcher for all requests: it marks each
 * request's progress (carried as the request's `opaque`) when the request reaches the pool.
 */
export function createHopSender(agent: Agent): (hop: Hop, signal: AbortSignal, progress: HopProgress) => Promise<HopAnswer> {
  const dispatcher = agent.compose((dispatch) => (options: Dispatcher.DispatchOptions & { opaque?: unknown }, handler) => {
    if (options.opaque && typeof options.opaque === "object" && "dispatched" in options.opaque) (options.opaque as HopProgress).dispatched = true;
    return dispatch(options, handler);
  });
  return async (hop, signal, progress) => {
    const answer = await dispatcher.request({
      origin: hop.url.origin,
      path: `${hop.url.pathname}${hop.url.search}`,
      method: hop.method as Dispatcher.HttpMethod,
      headers: headerList(hop.headers),
      body: hop.body,
      signal,
      opaque: progress,
    });
    return { status: answer.statusCode, statusText: answer.statusText, headers: answerHeaders(answer.headers), body: answer.body };
  };
}

/** Drops an answer's body unread: its connection is closed, and the abort that reports is expected. */
export function discardBody(body: Readable): void {
  body.on("error", () => undefined);
  body.destroy();
}
