/**
 * What a user's message asks of the offline demo model: help, nothing (a declined payment), a
 * list of services, or a request that any listed service might answer. A request is searched
 * for in the user's own words; which listing fits is decided from the listings themselves
 * (listing-relevance.ts). Deterministic on purpose.
 */
import { readRequest } from "./request-reading";
import { contentStems, stem } from "./words";

export type DemoIntent = { kind: "help" } | { kind: "declined" } | { kind: "list"; query: string | undefined } | { kind: "request"; query: string };

/** The discovery tool takes a query of at most this many characters. */
export const MAX_QUERY_CHARS = 200;

const LIST_VERBS = /\b(list|compare|browse|discover)\b/i;
const ASKING_FOR_SERVICES = /\b(find|search|show|what|which|any)\b[\s\S]*\b(services?|apis?|options|listings?|providers?|catalog(ue)?)\b/i;
const DOING_VERBS = /\b(buy|purchase|use|call|pay for|order)\b/i;
/** Words of a listing request that name no subject ("compare the prices of all services"). */
const LIST_VOCABULARY = new Set(
  [
    "list",
    "compare",
    "browse",
    "discover",
    "price",
    "prices",
    "cost",
    "costs",
    "option",
    "options",
    "available",
    "listing",
    "listings",
    "provider",
    "providers",
    "catalog",
    "catalogue",
    "offer",
    "offers",
    "cheap",
    "cheapest",
    "expensive",
  ].map(stem),
);

export function readDemoIntent(text: string): DemoIntent {
  const lower = text.toLowerCase();
  // The page reports a rejected approval in words; nothing is to be bought then.
  if (/\b(i )?(declined|rejected|refused|cancel(l)?ed)\b.*\bpayment\b|\bdon'?t pay\b/.test(lower)) return { kind: "declined" };
  const reading = readRequest(text);
  if ((LIST_VERBS.test(reading.request) || ASKING_FOR_SERVICES.test(reading.request)) && !DOING_VERBS.test(reading.request)) {
    const subject = contentStems(reading.request).filter((word) => !LIST_VOCABULARY.has(word));
    return { kind: "list", query: subject.length > 0 ? queryOf(reading.request) : undefined };
  }
  // Greetings and "what can you do?": no word that could name a service.
  if (contentStems(reading.text).length === 0) return { kind: "help" };
  return { kind: "request", query: queryOf(reading.request || reading.text) };
}

/** The user's words, cut at a word boundary to the tool's limit. */
function queryOf(text: string): string {
  const words = text.replace(/\s+/g, " ").trim();
  if (words.length <= MAX_QUERY_CHARS) return words;
  const cut = words.slice(0, MAX_QUERY_CHARS);
  const space = cut.lastIndexOf(" ");
  return space > MAX_QUERY_CHARS / 2 ? cut.slice(0, space) : cut;
}
