/**
 * What the offline demo model reads in a plain request: the text it carries (quoted, or after a
 * colon), and the values a service may need (places, tickers and currency codes, ids, numbers
 * with their units, e-mail addresses, languages, the topic after "about"/"on"). Nothing here
 * knows any service: the call planner (call-plan.ts) matches these values to a listing's
 * declared inputs, and the ranking (listing-relevance.ts) weighs the remaining words.
 */
import { findNumbers, type NumberMention } from "./number-mentions";
import { contentStems, isStopWord, stem, wordsOf } from "./words";
import { COIN_SYMBOLS, CURRENCY_CODES, CURRENCY_NAMES, LANGUAGES, NOT_CODES, NOT_PLACES, PLACE_ENDS, PLACE_PREPOSITIONS } from "./request-vocabulary";

export type RequestReading = {
  /** The whole message, trimmed. */
  text: string;
  /** The message without its payload: what is asked for. */
  request: string;
  /** Text the user hands over to be worked on: quoted, or after a colon. */
  payload?: string;
  /** Place names, as written (title case for a lower-case "in lisbon"). */
  places: string[];
  /** A capitalised word that starts the request ("Porto weather"): a place only if nothing else explains it. */
  leadingName?: string;
  /** Upper-case tickers and codes, and the symbols of coins named in words, in order. */
  codes: string[];
  /** Currency codes, from codes and from names ("euros"). */
  currencies: string[];
  /** Ids as people write them: "doc-7". */
  ids: string[];
  numbers: NumberMention[];
  /** A number right after a word ("document 7"), with that word's lower-case form. */
  numberedWords: { word: string; value: number }[];
  emails: string[];
  languages: { name: string; code: string }[];
  /** What follows "about", "on", "regarding", "of" or "for": the subject of the request. */
  topicPhrase?: string;
  /** Stems that say what is wanted. */
  topicWords: string[];
  /** Stems of values (places, codes, ids): weak evidence of which service is meant. */
  valueWords: string[];
  /** Topic words inside the topic phrase: what to ask about, not necessarily whom to ask. */
  argumentWords: string[];
  /** Stems the values imply ("bitcoin" → crypto, "euros" → currency): support, never a fit alone. */
  impliedWords: string[];
  /** Capitalised names elsewhere in the request ("… weather Hamburg"): places of last resort. */
  names: string[];
};

const MAX_READ_CHARS = 4_000;
const MAX_PAYLOAD_CHARS = 2_000;

/**
 * `whole`: the message read as one request, nothing set apart as payload: for a colon that
 * only punctuated the request ("Getting around Lima: transit tips").
 */
export function readRequest(message: string, options: { whole?: boolean } = {}): RequestReading {
  const text = message.trim().slice(0, MAX_READ_CHARS);
  const { request, payload } = options.whole ? { request: text, payload: undefined } : splitPayload(text);
  const places = findPlaces(request);
  const codes = findCodes(request);
  const ids = [...new Set(request.match(/\b[A-Za-z]{1,12}-\d{1,9}\b/g) ?? [])].map((id) => id.toLowerCase());
  const emails = [...new Set(request.match(/[\w.+-]{1,64}@[\w-]{1,63}(?:\.[\w-]{1,63})+/g) ?? [])];
  const lowerWords = wordsOf(request);
  const languages = lowerWords.flatMap((word) => (LANGUAGES[word] ? [{ name: titleCase(word), code: LANGUAGES[word]! }] : []));
  const currencies = [
    ...new Set([...codes.filter((code) => CURRENCY_CODES.has(code)), ...lowerWords.flatMap((word) => (CURRENCY_NAMES[word] ? [CURRENCY_NAMES[word]!] : []))]),
  ];
  const topicPhrase = findTopicPhrase(request);

  // Values are weak evidence of the service wanted: "Paris" alone does not ask for a Paris guide.
  const named = lowerWords.filter((word) => CURRENCY_NAMES[word] || LANGUAGES[word]);
  // An upper-case word may be a ticker ("ACME") or say what is wanted ("AQI", "FX"): it is read
  // as a topic word, one that does not count against a listing when it matches nothing.
  const acronyms = codes.filter((code) => !COIN_SYMBOLS[code.toLowerCase()] && !CURRENCY_CODES.has(code));
  const acronymStems = new Set(acronyms.flatMap((code) => contentStems(code)));
  const valueText = [...places, ...codes.filter((code) => CURRENCY_CODES.has(code)), ...ids, ...emails, ...named].join(" ");
  const valueWords = [...new Set(contentStems(valueText))];
  const valueSet = new Set(valueWords);
  const idParts = new Set(ids.flatMap((id) => contentStems(id)));
  const emailParts = new Set(emails.flatMap((email) => contentStems(email)));
  const topicWords = [...new Set(contentStems(request.replace(/[\w.+-]+@[\w.-]+/g, " ")))].filter(
    (word) => !valueSet.has(word) && !idParts.has(word) && !emailParts.has(word),
  );

  return {
    text,
    request,
    ...(payload ? { payload } : {}),
    places,
    ...leadingNameOf(request),
    codes,
    currencies,
    ids,
    numbers: findNumbers(request),
    numberedWords: [...request.matchAll(/\b(\p{L}{2,20})\s+(?:#|no\.?\s*|number\s+)?(\d{1,9})\b/giu)].map((match) => ({
      word: match[1]!.toLowerCase(),
      value: Number(match[2]),
    })),
    emails,
    languages,
    ...(topicPhrase ? { topicPhrase } : {}),
    topicWords,
    valueWords,
    argumentWords: [...new Set([...(topicPhrase ? contentStems(topicPhrase) : []), ...acronymStems])].filter((word) => topicWords.includes(word)),
    impliedWords: impliedBy(codes, currencies, languages).filter((word) => !topicWords.includes(word)),
    names: findNames(request).filter((name) => !places.includes(name)),
  };
}

/**
 * Quoted text is the payload ("Translate 'good night'"); so is the text after a colon when it
 * is more than a word ("Extract the keywords from this: Solar panels…"). The rest is the request.
 */
function splitPayload(text: string): { request: string; payload?: string } {
  const quoted = /"([^"]{1,2000})"|“([^”]{1,2000})”|«([^»]{1,2000})»|‘([^’]{1,2000})’|(?<=^|[\s(])'([^']{1,2000})'(?=$|[\s.,!?;:)])/u.exec(text);
  if (quoted) {
    const payload = (quoted[1] ?? quoted[2] ?? quoted[3] ?? quoted[4] ?? quoted[5] ?? "").trim();
    if (payload)
      return {
        request: `${text.slice(0, quoted.index)} ${text.slice(quoted.index + quoted[0].length)}`.replace(/\s+/g, " ").trim(),
        payload: payload.slice(0, MAX_PAYLOAD_CHARS),
      };
  }
  const colon = /^(.*?\p{L}.*?):\s+(\S+(?:\s+\S+)+[\s\S]*)$/u.exec(text);
  if (colon && colon[1]!.length <= 200) return { request: colon[1]!.trim(), payload: colon[2]!.trim().slice(0, MAX_PAYLOAD_CHARS) };
  return { request: text };
}

function findPlaces(request: string): string[] {
  const places: string[] = [];
  const name = "\\p{Lu}[\\p{L}'’-]*(?:\\s+(?:(?:de|da|do|del|la|le|los|las|of)\\s+)?\\p{Lu}[\\p{L}'’-]*){0,3}";
  for (const match of request.matchAll(new RegExp(`\\b(?:${PLACE_PREPOSITIONS})\\s+(?:the\\s+city\\s+of\\s+)?(${name})`, "gu"))) {
    const place = cleanPlace(match[1]!);
    if (place) places.push(place);
  }
  // "weather in new york today": a lower-case name after "in", cut where other words begin.
  if (places.length === 0) {
    const lower = /\bin\s+([\p{Ll}][\p{L}'’-]+(?:\s+[\p{Ll}][\p{L}'’-]+){0,2})/u.exec(request)?.[1];
    const words = (lower ?? "").split(/\s+/);
    const kept: string[] = [];
    for (const word of words) {
      if (!word || PLACE_ENDS.has(word) || isStopWord(word) || NOT_PLACES.has(word) || LANGUAGES[word] || CURRENCY_NAMES[word] || /^\d/.test(word)) break;
      kept.push(word);
    }
    if (kept.length > 0) places.push(titleCase(kept.join(" ")));
  }
  return [...new Set(places)];
}

function cleanPlace(candidate: string): string | undefined {
  const words = candidate.split(/\s+/).filter((word) => !/^[\p{Lu}\d]{2,}$/u.test(word));
  if (words.length === 0) return undefined;
  const first = words[0]!.toLowerCase();
  if (isStopWord(first) || NOT_PLACES.has(first) || LANGUAGES[first] || CURRENCY_NAMES[first] || COIN_SYMBOLS[first]) return undefined;
  return words.join(" ");
}

/** The kinds of thing the values are: a coin is crypto, a euro a currency, French a language. */
function impliedBy(codes: readonly string[], currencies: readonly string[], languages: readonly unknown[]): string[] {
  const implied: string[] = [];
  if (codes.some((code) => COIN_SYMBOLS[code.toLowerCase()])) implied.push("crypto", "coin");
  if (currencies.length > 0) implied.push("currency");
  if (languages.length > 0) implied.push("language");
  return [...new Set(implied.map(stem))];
}

/** Capitalised names that do not start a sentence. */
function findNames(request: string): string[] {
  const names: string[] = [];
  for (const match of request.matchAll(/(?<=[\p{L}\p{N},;]\s+)\p{Lu}\p{Ll}[\p{L}'’-]*(?:\s+\p{Lu}\p{Ll}[\p{L}'’-]*){0,2}/gu)) {
    const name = cleanPlace(match[0]);
    if (name) names.push(name);
  }
  return [...new Set(names)];
}

/** "Porto weather, please": a capitalised first word that is no stop word and no code. */
function leadingNameOf(request: string): { leadingName?: string } {
  const first = /^\s*(\p{Lu}\p{Ll}[\p{L}'’-]*)/u.exec(request)?.[1];
  if (!first) return {};
  const lower = first.toLowerCase();
  if (isStopWord(lower) || NOT_PLACES.has(lower) || LANGUAGES[lower] || CURRENCY_NAMES[lower] || COIN_SYMBOLS[lower]) return {};
  return { leadingName: first };
}

function findCodes(request: string): string[] {
  const codes: string[] = [];
  for (const match of request.matchAll(/(?<![\w-])([A-Z][A-Z0-9]{1,5}|[A-Z]{2,6}(?:\.[A-Z]{1,2})?)(?![\w-])/g)) {
    const code = match[1]!;
    if (!NOT_CODES.has(code) && /[A-Z]{2}/.test(code)) codes.push(code);
  }
  for (const word of wordsOf(request)) {
    const symbol = COIN_SYMBOLS[word];
    if (symbol) codes.push(symbol);
  }
  return [...new Set(codes)];
}

/** The subject after "about", "on", "regarding", "of" or "for", cut before time words and filler. */
function findTopicPhrase(request: string): string | undefined {
  const match = /\b(?:about|on|regarding|concerning|of|for)\s+([\p{L}\p{N}][\p{L}\p{N}\s'’&.,-]{0,80}?)\s*(?:[?!;]|\.(?:\s|$)|$)/iu.exec(request);
  let phrase = match?.[1]?.trim();
  if (!phrase) return undefined;
  phrase = phrase
    .replace(/\s*,?\s*\b(today|tonight|tomorrow|now|right now|please|this week|at the moment|currently)\b.*$/i, "")
    .replace(/^(the|a|an|some|my|our)\s+/i, "")
    .replace(/[.,\s]+$/, "")
    .trim();
  return phrase && !/^\d+$/.test(phrase) && !isStopWord(phrase) ? phrase : undefined;
}

function titleCase(text: string): string {
  return text
    .trim()
    .split(/\s+/)
    .map((word) => word.charAt(0).toUpperCase() + word.slice(1).toLowerCase())
    .join(" ");
}
