/**
 * The call the offline demo model makes to a chosen listing: each declared input filled from
 * the request where the request says it (a place, a ticker, an id, "2 days", quoted text),
 * else from the service's own example value, and every such assumption recorded so the answer
 * can say it. An input that takes only some values (field-choices.ts) gets one of them. A
 * required input the request does not give and the service gives no usable example for is not
 * guessed: the model asks for it. Nothing here names a service.
 */
import { fillRouteTemplate } from "../../x402/call-usage";
import { choiceInRequest, choicesOf, matchingChoice } from "./field-choices";
import { kindOf } from "./input-kinds";
import { namedValueFor, valueFor, type FilledInput } from "./input-values";
import { inputsOf, type InputField, type ServiceEntry } from "./listing-inputs";
import { readRequest, type RequestReading } from "./request-reading";
import { contentStems } from "./words";

export type PlannedCall = { url: string; method: string; body?: Record<string, unknown> | string };

export type { FilledInput } from "./input-values";

export type CallPlan = { ok: true; call: PlannedCall; inputs: FilledInput[] } | { ok: false; missing: InputField[] };

/** The longest value put in a query string or path segment (a call's URL is at most 2048). */
const MAX_URL_VALUE_CHARS = 300;

/** Fills `entry`'s declared inputs from the request; `undefined` values are left out of the call. */
export function planCall(entry: ServiceEntry, reading: RequestReading): CallPlan {
  const inputs = inputsOf(entry);
  const listingStems = new Set(contentStems(`${entry.name ?? ""} ${(entry.tags ?? []).join(" ")} ${entry.description ?? ""}`));
  const argument = argumentAfterDescription(reading.request, entry.description);
  const filled: FilledInput[] = [];
  const missing: InputField[] = [];
  const used = new Set<string>();
  const numberFields = inputs.fields.filter((field) => kindOf(field) === "number");

  // In "<description> for <input>", the values after the description are the ones meant.
  const argumentReading = argument ? readRequest(argument) : undefined;
  for (const field of inputs.fields) {
    const kind = kindOf(field);
    const context = { listingStems, argument, used, onlyNumber: numberFields.length === 1 };
    const found =
      // Quoted text or text after a colon is the text itself, whatever word came before it.
      (reading.payload !== undefined && (kind === "text" || kind === "topic") ? undefined : namedValueFor(field, kind, reading.text, inputs.fields, context)) ??
      (argumentReading && valueFor(field, kind, argumentReading, context)) ??
      valueFor(field, kind, reading, context);
    // A field that takes only some values takes one of them, or none: its example only if it is one.
    const choices = choicesOf(field);
    const value = choices ? choiceFor(choices, found, reading, used) : found;
    const example = choices ? matchingChoice(choices, field.example) : field.example;
    if (value !== undefined) {
      filled.push({ field, ...value });
      used.add(asText(value.value));
    } else if (example !== undefined && example !== null) {
      filled.push({ field, value: example, from: "example" });
    } else if (field.required) missing.push(field);
  }
  if (missing.length > 0) return { ok: false, missing };

  const pathValues = Object.fromEntries(filled.filter((input) => input.field.in === "path").map((input) => [input.field.name, inUrl(input.value)]));
  let url: URL;
  try {
    url = new URL(fillRouteTemplate(inputs.template || entry.resource || "", pathValues));
  } catch {
    return { ok: false, missing: inputs.fields.filter((field) => field.in === "path") };
  }
  for (const input of filled.filter((candidate) => candidate.field.in === "query")) url.searchParams.set(input.field.name, inUrl(input.value));
  const call: PlannedCall = { url: url.toString(), method: inputs.method };
  const bodyInputs = filled.filter((input) => input.field.in === "body");
  if (inputs.bodyType === "text") {
    const text = reading.payload ?? argument;
    if (text) call.body = text;
  } else if (bodyInputs.length > 0) {
    call.body = Object.fromEntries(bodyInputs.map((input) => [input.field.name, bodyValue(input)]));
  }
  return { ok: true, call, inputs: filled };
}

/** The choice the value read names, else the one the request names elsewhere ("the stations dataset"). */
function choiceFor(
  choices: readonly unknown[],
  found: Omit<FilledInput, "field"> | undefined,
  reading: RequestReading,
  used: ReadonlySet<string>,
): Omit<FilledInput, "field"> | undefined {
  const named = found === undefined ? undefined : matchingChoice(choices, found.value);
  const value = named ?? choiceInRequest(choices, reading, used);
  return value === undefined ? undefined : { value, from: "request" };
}

/**
 * A request phrased as the listing's own description and an input ("Delayed stock quote for a
 * ticker for ACME", as suggestions are written): the input is what follows the description.
 */
function argumentAfterDescription(request: string, description: string | undefined): string | undefined {
  if (!description) return undefined;
  const normalise = (text: string) =>
    text
      .replace(/\([^)]*\)/g, " ")
      .replace(/\s+/g, " ")
      .trim()
      .replace(/[.;:,]+$/, "")
      .toLowerCase();
  const wanted = normalise(description);
  const firstSentence = normalise(description.split(/(?<=[.;])\s/)[0] ?? "");
  const cleaned = request.replace(/\([^)]*\)/g, " ").replace(/\s+/g, " ");
  const lower = cleaned.toLowerCase();
  for (const candidate of [wanted, firstSentence]) {
    if (candidate.length < 12) continue;
    const at = lower.indexOf(candidate);
    if (at < 0 || lower.length !== cleaned.length) continue;
    const rest = cleaned
      .slice(at + candidate.length)
      .replace(/^[\s.;:,]*(?:for|with|on|about|of|:)?\s*/i, "")
      .replace(/[\s.?!]+$/, "")
      .trim();
    if (rest) return rest;
  }
  return undefined;
}

/** A value in a URL, bounded so a long message cannot push the URL past what a call may be. */
function inUrl(value: unknown): string {
  return asText(value).slice(0, MAX_URL_VALUE_CHARS);
}

/** A value as text: text as it is, anything else as JSON. */
export function asText(value: unknown): string {
  return typeof value === "string" ? value : typeof value === "number" || typeof value === "boolean" ? String(value) : (JSON.stringify(value) ?? "");
}

function bodyValue(input: FilledInput): unknown {
  const { field, value } = input;
  if (typeof value === "number") return value;
  if (field.type === "integer" || field.type === "number" || typeof field.example === "number") {
    const number = Number(value);
    return Number.isFinite(number) ? number : value;
  }
  if (field.type === "boolean" || typeof field.example === "boolean") return value === "true";
  return value;
}
