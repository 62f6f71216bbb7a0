/**
 * The offline demo model's turn for a URL the user gave (named-call.ts): search discovery with
 * the URL's own path words, so the listing (if any) is known and its method read; call the URL
 * exactly as written; then say so. A listing fits a URL by origin and path, a path template's
 * parameters (`:symbol`, `{symbol}`) matching the user's own values. Whether an unlisted URL may
 * be called, and by whom, is decided in code (agent-run.ts), never here.
 */
import { asColonTemplate, matchesRouteTemplate } from "../../x402/route-template";
import type { PlannedCall } from "./call-plan";
import { MAX_QUERY_CHARS } from "./demo-intent";
import { namedCallText } from "./demo-replies";
import { entriesOf, inputsOf, type ServiceEntry } from "./listing-inputs";
import type { NamedCall } from "./named-call";
import { CALL_TOOL, DISCOVER_TOOL, type Decision, type ToolResult } from "./turn-types";
import { plainQuery } from "./words";

export function namedCallTurn(named: NamedCall, results: readonly ToolResult[]): Decision {
  const last = results.at(-1);
  if (!last) {
    const query = searchQueryOf(named.url);
    return { type: "tool", toolName: DISCOVER_TOOL, input: query ? { query } : {} };
  }
  // A failed search leaves the listing unknown: the URL is still the call the user asked for.
  const entries = results.filter((result) => result.toolName === DISCOVER_TOOL).flatMap((result) => entriesOf(result.value));
  const listing = listingFor(named.url, entries);
  const call = namedCallOf(named, listing);
  if (last.toolName === DISCOVER_TOOL) return { type: "tool", toolName: CALL_TOOL, input: call };
  return { type: "text", text: namedCallText(call, listing, last.value) };
}

/** The call: the URL as written; the user's method and body, else the listing's method. */
export function namedCallOf(named: NamedCall, listing: ServiceEntry | undefined): PlannedCall {
  const method = named.method ?? (listing ? inputsOf(listing).method : undefined) ?? (named.body ? "POST" : "GET");
  return { url: named.url, method, ...(named.body ? { body: named.body } : {}) };
}

/** The listing at the URL's origin and path: the same path first, then a template it fills in. */
export function listingFor(url: string, entries: readonly ServiceEntry[]): ServiceEntry | undefined {
  const target = parse(url);
  if (!target) return undefined;
  const listed = entries.flatMap((entry) => {
    const at = parse(inputsOf(entry).template || entry.resource || "");
    return at && at.origin === target.origin ? [{ entry, path: asColonTemplate(at.pathname) }] : [];
  });
  return (listed.find((candidate) => candidate.path === target.pathname) ?? listed.find((candidate) => matchesRouteTemplate(candidate.path, target.pathname)))
    ?.entry;
}

/** The URL's path words ("/v1/tide-tables" → "v1 tide table"): what the listing is called by. */
function searchQueryOf(url: string): string | undefined {
  const path = parse(url)?.pathname ?? "";
  const query = plainQuery(decodeOr(path).replace(/[/_.-]+/g, " "))
    .slice(0, MAX_QUERY_CHARS)
    .trim();
  return query || undefined;
}

function decodeOr(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

function parse(url: string): URL | undefined {
  return URL.canParse(url) ? new URL(url) : undefined;
}
