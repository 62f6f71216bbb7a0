/**
 * The values a request gives for a listing's declared input, by the input's kind: a number by
 * its unit, an e-mail, an id like the example's, a currency, a coin's or a ticker's code, a
 * place, text the user handed over, or a topic; and a value the request gives by the input's
 * own name ("with days 3"). The call planner (call-plan.ts) decides what to do with them.
 */
import { exampleText, fieldStems, LANGUAGE_NAMES, type Kind } from "./input-kinds";
import type { InputField } from "./listing-inputs";
import { readRequest, type RequestReading } from "./request-reading";
import { coinSymbol, isCurrencyCode } from "./request-vocabulary";
import { contentStems, isStopWord, matchStrength, stem } from "./words";

export type FilledInput = {
  field: InputField;
  value: unknown;
  /** Where the value came from: the request, the service's example, or the request's value moved into the declared range. */
  from: "request" | "example" | "clamped";
};

const COIN_WORDS = ["crypto", "coin", "token", "cryptocurrency"].map(stem);

export type Context = { listingStems: Set<string>; argument?: string; used: Set<string>; onlyNumber: boolean };

export function valueFor(field: InputField, kind: Kind, reading: RequestReading, context: Context): Omit<FilledInput, "field"> | undefined {
  const fromRequest = (value: string | number | undefined) => (value === undefined || value === "" ? undefined : { value, from: "request" as const });
  const unused = (values: readonly string[]) => values.find((value) => !context.used.has(value));
  switch (kind) {
    case "number":
      return numberFor(field, reading, context.onlyNumber);
    case "email":
      return fromRequest(unused(reading.emails));
    case "id":
      return fromRequest(idFor(field, reading));
    case "pair": {
      const pair = /\b([A-Za-z0-9]{2,10})[-/]([A-Za-z0-9]{2,10})\b/.exec(reading.request);
      if (pair) return fromRequest(`${pair[1]!.toUpperCase()}-${pair[2]!.toUpperCase()}`);
      return reading.codes.length >= 2 ? fromRequest(`${reading.codes[0]}-${reading.codes[1]}`) : undefined;
    }
    case "language": {
      const language = reading.languages[LANGUAGE_NAMES.has(field.name.toLowerCase()) && /^(from|source)/i.test(field.name) ? 0 : reading.languages.length - 1];
      if (!language) return undefined;
      return fromRequest(/^[a-z]{2}(-[A-Z]{2})?$/.test(exampleText(field)) || !field.example ? language.code : language.name);
    }
    case "currency": {
      // "from USD to GBP": a field named for the target takes the second currency named.
      const second = /^(to|target|quote|into)/i.test(field.name) && reading.currencies.length > 1;
      return fromRequest(second ? reading.currencies[1] : unused(reading.currencies));
    }
    case "code": {
      const words = fieldStems(field);
      const wantsCoin = COIN_WORDS.some((word) => words.includes(word) || context.listingStems.has(word)) || coinSymbol(exampleText(field)) !== undefined;
      const coins = reading.codes.filter((code) => coinSymbol(code) !== undefined);
      const others = reading.codes.filter((code) => coinSymbol(code) === undefined && !isCurrencyCode(code));
      return fromRequest(unused(wantsCoin ? [...coins, ...others] : [...others, ...coins]));
    }
    case "place":
      return fromRequest(unused(reading.places) ?? unexplained(reading.names, context.listingStems) ?? leadingPlace(reading, context.listingStems));
    case "text":
      // Text to work on is only what the user handed over, never a phrase guessed from the request.
      return fromRequest(reading.payload ?? context.argument);
    case "topic":
      return fromRequest(reading.payload ?? context.argument ?? reading.topicPhrase ?? leftover(reading, context.listingStems));
  }
}

/**
 * A value the request gives by the input's own name: "with days 3", "city: Porto", "limit is 5",
 * "with text Solar power and limit 5" (a value runs to the next input named, or the end), as the
 * empty page's suggestions are worded. Names that are everyday words ("to", "from") are left to
 * the other readings; a value must read as the input's kind ("city guide" names no city).
 */
export function namedValueFor(
  field: InputField,
  kind: Kind,
  request: string,
  fields: readonly InputField[],
  context: Context,
): Omit<FilledInput, "field"> | undefined {
  if (field.name.length < 2 || isStopWord(field.name)) return undefined;
  const others = fields.filter((other) => other !== field && other.name.length >= 2).map((other) => escapeRegExp(other.name));
  const until = others.length > 0 ? `(?=\\s+and\\s+(?:${others.join("|")})\\b|[?!]|$)` : "(?=[?!]|$)";
  const name = escapeRegExp(field.name);
  const introduced = `\\b(?:with|and|using|set)\\s+(?:the\\s+|a\\s+)?${name}\\s+(?:of\\s+|as\\s+|to\\s+)?|(?:^|\\s)${name}\\s*(?:[:=]|\\bis\\b)\\s*`;
  const match = new RegExp(`(?:${introduced})(\\S.*?)\\s*${until}`, "i").exec(request);
  const raw = match?.[1]?.replace(/[.,;]+$/, "").trim();
  if (!raw) return undefined;
  if (kind === "text" || kind === "topic") return { value: raw, from: "request" };
  return valueFor(field, kind, readRequest(raw), { ...context, onlyNumber: true });
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

/** A name the listing's own words do not explain ("Hamburg", not a word of the listing's own name). */
function unexplained(names: readonly string[], listingStems: Set<string>): string | undefined {
  return names.find((name) => contentStems(name).some((word) => !listingStems.has(word)));
}

/** "Porto weather": the first word, if the listing does not explain it. */
function leadingPlace(reading: RequestReading, listingStems: Set<string>): string | undefined {
  const name = reading.leadingName;
  return name && !listingStems.has(stem(name)) ? name : undefined;
}

/** The request's content words the listing does not explain ("tech" in "latest tech news"). */
function leftover(reading: RequestReading, listingStems: Set<string>): string | undefined {
  const words = reading.request.match(/[\p{L}\p{N}][\p{L}\p{N}'’-]*/gu) ?? [];
  const kept = words.filter((word) => {
    const stems = contentStems(word);
    return stems.length > 0 && stems.every((candidate) => !listingStems.has(candidate) && matchStrength(candidate, [...listingStems]) === 0);
  });
  return kept.length > 0 && kept.length <= 6 ? kept.join(" ") : undefined;
}

function idFor(field: InputField, reading: RequestReading): string | undefined {
  const example = exampleText(field);
  const prefix = /^([A-Za-z]{1,12})-\d/.exec(example)?.[1]?.toLowerCase();
  if (prefix) {
    const same = reading.ids.find((id) => id.startsWith(`${prefix}-`));
    if (same) return same;
    // "document 7" for an id like doc-1: a number after a word that begins like the id.
    const numbered = reading.numberedWords.find((entry) => entry.word.startsWith(prefix) || prefix.startsWith(entry.word));
    if (numbered) return `${prefix}-${numbered.value}`;
  }
  return reading.ids[0];
}

function numberFor(field: InputField, reading: RequestReading, onlyNumber: boolean): Omit<FilledInput, "field"> | undefined {
  const words = fieldStems(field);
  let value: number | undefined;
  for (const mention of reading.numbers) {
    if (!mention.unit) continue;
    if (words.includes(mention.unit) || field.name.toLowerCase() === mention.unit) value = mention.value;
    // "a week" for a field counted in days.
    else if (mention.unit === "week" && words.includes("day")) value = mention.value * 7;
    if (value !== undefined) break;
  }
  // "… for 2": a number without a unit goes to the only numeric input there is.
  if (value === undefined && onlyNumber) {
    const bare = reading.numbers.filter((mention) => !mention.unit);
    if (bare.length === 1) value = bare[0]!.value;
  }
  if (value === undefined) return undefined;
  const range = /(-?\d+(?:\.\d+)?)\s*(?:to|-|–|through|and)\s*(-?\d+(?:\.\d+)?)/.exec(field.description ?? "");
  if (range) {
    const [min, max] = [Number(range[1]), Number(range[2])];
    if (value < min || value > max) return { value: Math.min(Math.max(value, min), max), from: "clamped" };
  }
  return { value, from: "request" };
}
