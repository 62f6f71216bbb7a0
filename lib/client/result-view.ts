/**
 * How a paid service's answer reads on a result card (components/result/): what was asked,
 * a demo label as a one-line notice, readable labels with units, and which shape each value
 * takes (a definition list, a table, a folded part). Pure functions, unit-tested; the data is
 * a third party's, so everything here returns plain text for React to escape.
 */

/** The answer marks itself as demo data (`demo: true`, with a `note`): said once, not listed as data. */
export function separateNotice(data: unknown): { data: unknown; notice: string | undefined } {
  if (!isRecord(data) || data.demo !== true) return { data, notice: undefined };
  const { demo: _demo, note, ...rest } = data;
  const notice = typeof note === "string" && note.trim() ? clip(note.trim(), 300) : "The service marks this answer as demo data.";
  // A `note` that is not text stays data: only the label is lifted out.
  return { data: typeof note === "string" || note === undefined ? rest : { ...rest, note }, notice };
}

export type AskedField = { name: string; value: string };

/** What was asked: the query and body fields, named; the URL's path when nothing else says it. */
export type Asked = { method: string | undefined; host: string; path: string; fields: AskedField[] };

const MAX_ASKED_FIELDS = 12;
const MAX_ASKED_VALUE_CHARS = 120;

export function askedOf(resource: string | undefined, request?: { method?: string | null; body?: string }): Asked | undefined {
  if (!resource) return undefined;
  let url: URL;
  try {
    url = new URL(resource);
  } catch {
    return undefined;
  }
  const fields: AskedField[] = [];
  for (const [name, value] of url.searchParams) fields.push({ name, value: clip(value, MAX_ASKED_VALUE_CHARS) });
  if (request?.body) fields.push(...bodyFields(request.body));
  return {
    method: request?.method ?? undefined,
    host: url.host,
    path: safeDecode(url.pathname),
    fields: fields.slice(0, MAX_ASKED_FIELDS),
  };
}

/** A JSON object's or a form's fields; any other body is one field, its text. */
function bodyFields(body: string): AskedField[] {
  try {
    const parsed = JSON.parse(body) as unknown;
    if (isRecord(parsed)) return Object.entries(parsed).map(([name, value]) => ({ name, value: clip(scalarText(value), MAX_ASKED_VALUE_CHARS) }));
  } catch {
    // Not JSON: a form, or text.
  }
  if (/^[^=&\s]+=[^&]*(&[^=&\s]+=[^&]*)*$/.test(body)) {
    return [...new URLSearchParams(body)].map(([name, value]) => ({ name, value: clip(value, MAX_ASKED_VALUE_CHARS) }));
  }
  return [{ name: "text", value: clip(body, MAX_ASKED_VALUE_CHARS) }];
}

/** Units read from the end of a field's name; the listings carry no output units to read instead. */
const UNIT_WORDS: readonly [words: readonly string[], unit: string][] = [
  [["usd", "billions"], "billion USD"],
  [["usd", "millions"], "million USD"],
  [["celsius"], "°C"],
  [["fahrenheit"], "°F"],
  [["percent"], "%"],
  [["pct"], "%"],
  [["kph"], "km/h"],
  [["kmh"], "km/h"],
  [["mph"], "mph"],
  [["usd"], "USD"],
  [["eur"], "EUR"],
  [["ms"], "ms"],
];

/** A field name as words: `temperatureCelsius` → "Temperature" with the unit "°C". */
export function labelOf(key: string): { label: string; unit: string | undefined } {
  const words = wordsOf(key);
  for (const [unitWords, unit] of UNIT_WORDS) {
    if (words.length <= unitWords.length) continue;
    const tail = words.slice(-unitWords.length).map((word) => word.toLowerCase());
    if (tail.every((word, index) => word === unitWords[index])) return { label: sentence(words.slice(0, -unitWords.length)), unit };
  }
  return { label: sentence(words), unit: undefined };
}

function wordsOf(key: string): string[] {
  const words = key
    .replace(/([\p{Ll}\p{N}])(\p{Lu})/gu, "$1 $2")
    .replace(/(\p{Lu})(\p{Lu}\p{Ll})/gu, "$1 $2")
    .replace(/(\p{Ll})(\p{N})/gu, "$1 $2")
    .split(/[\s_-]+/)
    .filter(Boolean);
  return words.length > 0 ? words : [key];
}

function sentence(words: readonly string[]): string {
  const text = words.map((word, index) => (index === 0 || /\p{Lu}{2,}/u.test(word) ? word : word.toLowerCase())).join(" ");
  return text.charAt(0).toUpperCase() + text.slice(1);
}

/** A scalar with its unit, when the unit applies to a number. */
export function withUnit(value: unknown, unit: string | undefined): string {
  const text = scalarText(value);
  if (!unit || !isNumeric(value)) return text;
  return unit === "%" ? `${text}%` : `${text} ${unit}`;
}

function isNumeric(value: unknown): boolean {
  return typeof value === "number" || (typeof value === "string" && /^-?\d+(\.\d+)?$/.test(value.trim()));
}

/** One line of text for any value: scalars as they are, anything else as compact JSON. */
export function scalarText(value: unknown): string {
  if (value === null) return "—";
  if (typeof value === "string") return value;
  if (typeof value === "number" || typeof value === "boolean") return String(value);
  try {
    return JSON.stringify(value) ?? "";
  } catch {
    return "";
  }
}

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

export function isScalar(value: unknown): boolean {
  return value === null || ["string", "number", "boolean"].includes(typeof value);
}

/** Text longer than this is folded behind its beginning. */
export const FOLD_TEXT_CHARS = 160;

/** The columns of an array of records, in order of first appearance; undefined when it is not one. */
export function tableColumns(value: unknown): string[] | undefined {
  if (!Array.isArray(value) || value.length === 0 || !value.every(isRecord)) return undefined;
  const columns: string[] = [];
  const seen = new Set<string>();
  for (const row of value as Record<string, unknown>[]) {
    for (const key of Object.keys(row)) {
      if (!seen.has(key)) {
        seen.add(key);
        columns.push(key);
      }
    }
  }
  // Records with nothing in common read better one by one than as a sparse table.
  return columns.length > 0 && columns.length <= 8 ? columns : undefined;
}

export function clip(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}

function safeDecode(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}
