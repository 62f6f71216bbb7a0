/**
 * Example requests for the empty chat, built from what discovery lists on the configured
 * network: one per group of services (one origin, like one publisher's API), each a sentence
 * made of the listing's name and the example values its input contract declares, with its
 * price. Nothing here knows any particular service: a listing that declares no example for a
 * required input gives no suggestion, since the agent would have to guess what to send.
 */
import { formatUsdc } from "../money";
import type { ServiceListing } from "../x402/discovery-listing";
import type { ParameterSpec } from "../x402/input-contract";

export type Suggestion = {
  /** The request, as a person would type it; it fills the composer, it is never sent on its own. */
  text: string;
  /** The listing's name, as discovery gave it. */
  service: string;
  /** Decimal USDC, the listing's price. */
  price: string;
};

export const MAX_SUGGESTIONS = 5;
/** Example values named in one sentence, at most, and the characters of each. */
const MAX_VALUES = 2;
const MAX_VALUE_CHARS = 40;
const MAX_NAME_CHARS = 48;

export type SuggestionOptions = {
  max?: number;
  /** Listings above this price (base units) are left out: they would exceed the default limit. */
  maxAmount?: bigint;
};

/**
 * Groups in order of their cheapest suggestible listing (a first try should cost little), ties in
 * the order discovery listed them; within a group, the first listing that can be suggested.
 */
export function buildSuggestions(listings: readonly ServiceListing[], options: SuggestionOptions = {}): Suggestion[] {
  return suggestionCandidates(listings, options).map(({ suggestion }) => suggestion);
}

/** The suggestions of `buildSuggestions`, each with the listing it was made from. */
export function suggestionCandidates(
  listings: readonly ServiceListing[],
  options: SuggestionOptions = {},
): { suggestion: Suggestion; listing: ServiceListing }[] {
  const groups = new Map<string, { first: number; listing: ServiceListing; text: string }>();
  listings.forEach((listing, index) => {
    const group = originOf(listing.resource);
    if (!group || groups.has(group)) return;
    if (options.maxAmount !== undefined && listing.amount > options.maxAmount) return;
    const text = requestSentence(listing);
    if (text) groups.set(group, { first: index, listing, text });
  });
  return [...groups.values()]
    .sort((a, b) => (a.listing.amount < b.listing.amount ? -1 : a.listing.amount > b.listing.amount ? 1 : a.first - b.first))
    .slice(0, options.max ?? MAX_SUGGESTIONS)
    .map(({ listing, text }) => ({ suggestion: { text, service: listing.name, price: formatUsdc(listing.amount) }, listing }));
}

/**
 * "Buy <name> for <value>" with one example value, "Buy <name> with <input> <value> and …"
 * with several, "Buy <name>" with none; undefined when a required input has no example.
 * Words only from the name (no punctuation), so the sentence reads as the person's request.
 */
export function requestSentence(listing: Pick<ServiceListing, "name" | "input">): string | undefined {
  const name = plainWords(listing.name, MAX_NAME_CHARS);
  if (!name) return undefined;
  const input = listing.input;
  const parameters: ParameterSpec[] = input ? [...input.path, ...input.query, ...(input.body?.fields ?? [])] : [];
  if (parameters.some((parameter) => parameter.required && !usable(parameter.example))) return undefined;
  const examples = parameters
    .filter((parameter) => usable(parameter.example))
    .sort((a, b) => Number(b.required) - Number(a.required))
    .slice(0, MAX_VALUES)
    .map((parameter) => ({ name: plainWords(parameter.name, 24), value: shorten(unquote(parameter.example as string)) }));
  if (examples.length === 0) return `Buy ${name}`;
  const [only] = examples;
  if (examples.length === 1 && only && !/^-?\d+(\.\d+)?$/.test(only.value)) return `Buy ${name} for ${only.value}`;
  return `Buy ${name} with ${examples.map((example) => `${example.name} ${example.value}`).join(" and ")}`;
}

function usable(example: string | undefined): boolean {
  return example !== undefined && unquote(example).trim().length > 0;
}

/** A JSON-quoted example (`"Lisbon"`) as its text. */
function unquote(text: string): string {
  return /^".*"$/.test(text) ? text.slice(1, -1) : text;
}

/** Letters, digits, spaces and a few joining marks: a name that reads as words, bounded. */
function plainWords(text: string, maxChars: number): string {
  const words = text
    .replace(/[^\p{L}\p{N}\s'.-]+/gu, " ")
    .replace(/\s+/g, " ")
    .trim();
  return words.length > maxChars ? words.slice(0, maxChars).replace(/\s+\S*$/, "") : words;
}

function shorten(text: string): string {
  const visible = text.replace(/\s+/g, " ").trim();
  if (visible.length <= MAX_VALUE_CHARS) return visible;
  // Cut at a word when there is one to cut at, so no word is left half.
  const cut = visible.slice(0, MAX_VALUE_CHARS - 1);
  return `${cut.includes(" ") ? cut.replace(/\s+\S*$/, "") : cut}…`;
}

function originOf(resource: string): string | undefined {
  try {
    return new URL(resource).origin;
  } catch {
    return undefined;
  }
}
