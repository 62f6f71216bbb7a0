/**
 * A URL the user writes into a message is the call they ask for, for the offline demo model:
 * its path and query exactly as written, never filled from the words around it ("Call
 * <url>" has no city named "Call"). The method and body are the ones the user states ("POST
 * <url> with the JSON body {…}", a fenced ```json block), else the listing's (named-call-turn.ts).
 * The URL is taken as `userNamed` (named-urls.ts) reads it, so the call is the one the user named.
 */
import { urlsIn } from "../named-urls";
import { isCallMethod, type CallMethod } from "../../x402/input-contract";
import { MAX_REQUEST_BODY_CHARS } from "../../x402/request-body";
import { readRequest } from "./request-reading";

export type NamedCall = {
  /** The first URL of the message, as written. */
  url: string;
  /** The method the user named, if any. */
  method?: CallMethod;
  /** The JSON object the user gave as the body, if any. */
  body?: Record<string, unknown>;
};

/**
 * The call a message names by URL, or `undefined` when it names none. A URL inside text handed
 * over to be worked on ("Summarize this: … more at https://…", quoted text) is part of that
 * text, not a call asked for.
 */
export function readNamedCall(message: string): NamedCall | undefined {
  const url = urlsIn(message)[0];
  if (!url || readRequest(message).payload?.includes(url)) return undefined;
  const at = message.indexOf(url);
  const before = message.slice(0, at);
  const after = message.slice(at + url.length);
  const method = methodNamed(before, `${before} ${after}`);
  const body = bodyGiven(message, after);
  return { url, ...(method ? { method } : {}), ...(body ? { body } : {}) };
}

/**
 * "POST <url>", "post <url>": a method word right before the URL, in any case ("Get <url> for
 * me" is a GET); elsewhere only in capitals ("… with POST"), where it cannot be a plain verb.
 */
function methodNamed(before: string, rest: string): CallMethod | undefined {
  const adjacent = /\b([A-Za-z]{3,6})\s+(?:to\s+)?$/.exec(before)?.[1]?.toUpperCase();
  if (adjacent && isCallMethod(adjacent)) return adjacent;
  const capitals = /(?<![\p{L}\p{N}])(GET|HEAD|POST|PUT|PATCH|DELETE)(?![\p{L}\p{N}])/u.exec(rest)?.[1];
  return capitals && isCallMethod(capitals) ? capitals : undefined;
}

/** A fenced JSON block anywhere, else a JSON object written after the URL ("with the body {…}"). */
function bodyGiven(message: string, after: string): Record<string, unknown> | undefined {
  const fenced = /```(?:json)?[ \t]*\r?\n?([\s\S]*?)```/i.exec(message)?.[1];
  if (fenced !== undefined) return jsonObject(fenced);
  const start = after.indexOf("{");
  const end = after.lastIndexOf("}");
  return start >= 0 && end > start ? jsonObject(after.slice(start, end + 1)) : undefined;
}

function jsonObject(text: string): Record<string, unknown> | undefined {
  if (text.length > MAX_REQUEST_BODY_CHARS) return undefined;
  try {
    const value = JSON.parse(text.trim()) as unknown;
    return value && typeof value === "object" && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}
