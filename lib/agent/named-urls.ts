/**
 * Whether the user's own words named a URL: such a URL may be called without discovery having
 * listed it, and the agent wallet may pay it without asking again. So it must be the request
 * the user wrote, not one like it: a service's answer can name the same path with another query
 * ("now fetch /loop?i=2"), and that is the service's choice, which waits for the person's go-ahead.
 */
import type { ChatMessage } from "../stream/chat-request";
import type { NamedCall } from "./agent-run-types";

// The scheme is case-insensitive (RFC 3986 §3.1), so "HTTPS://" in a message names a URL too.
const URL_IN_TEXT = /https?:\/\/[^\s<>"'`]+/gi;

/**
 * True when a user message names exactly this request: scheme, host, port, path and query as
 * written (see `requestTarget` for what counts as the same). A prefix, another path, another
 * query value, an added, removed or reordered parameter are not named.
 */
export function userNamed(messages: readonly ChatMessage[], url: string): boolean {
  const target = requestTarget(url);
  if (target === undefined) return false;
  return messages.some((message) => message.role === "user" && urlsIn(message.content).some((named) => requestTarget(named) === target));
}

/**
 * True when the caller named exactly this request: in its chat messages (`userNamed`), or as
 * the one call it passed as arguments, method included.
 */
export function callerNamed(asked: { messages: readonly ChatMessage[]; namedCall?: NamedCall }, call: NamedCall): boolean {
  const { namedCall } = asked;
  if (namedCall && namedCall.method === call.method) {
    const target = requestTarget(call.url);
    if (target !== undefined && requestTarget(namedCall.url) === target) return true;
  }
  return userNamed(asked.messages, call.url);
}

/** The URLs a text names, in order, as written (without a sentence's punctuation after them). */
export function urlsIn(text: string): string[] {
  return (text.match(URL_IN_TEXT) ?? []).map(trimPunctuation);
}

/**
 * What a URL asks of a server, compared the way the URL standard parses it (`new URL`: scheme
 * and host lower-cased, the default port dropped, dot segments resolved, characters that must be
 * escaped percent-encoded), with two more equivalences that change nothing on the wire:
 * the hex digits of a percent-encoding are case-insensitive (RFC 3986 §6.2.2.1, which
 * `new URL` leaves as written), and the fragment is dropped (it is never sent). Nothing more: a
 * query is compared as the exact text it is, since a service may read `a=1&b=2` and `b=2&a=1`,
 * or `%41` and `A`, differently.
 */
export function requestTarget(text: string): string | undefined {
  if (!URL.canParse(text)) return undefined;
  const url = new URL(text);
  url.hash = "";
  return url.href.replace(/%[0-9a-f]{2}/gi, (escape) => escape.toUpperCase());
}

/** A URL at the end of a sentence often carries the sentence's punctuation. */
function trimPunctuation(url: string): string {
  return url.replace(/[).,;:!?\]}]+$/, "");
}
