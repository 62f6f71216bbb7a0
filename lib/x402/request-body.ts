/**
 * The body of a paid call: what the model gives (an object of fields, or a string) turned into
 * the exact text and content type that are quoted, signed for and sent. Browser-safe: the
 * approval schema (lib/stream/events.ts) takes its content types from here.
 *
 * What a `form-data` body is. The bazaar extension (x402 `specs/extensions/bazaar.md`) lets a
 * service declare `bodyType` "json" | "form-data" | "text" with an example `body` object, and
 * says nothing about the bytes on the wire. What the rest of x402 shows:
 * - v1's request description (the legacy `HTTPRequestStructureSchema`) named `form-data` and
 *   `multipart-form-data` as two different body types, so a `form-data` body there is the plain
 *   URL-encoded form, not multipart;
 * - @x402/extensions' v1 → v2 mapping folds every type naming "form" or "multipart" into v2's
 *   `form-data`: the v2 value says "named form fields", nothing finer;
 * - the declared body is an object of named example values, and a model can only write text
 *   values (it has no files to upload).
 * So form fields go as `application/x-www-form-urlencoded`: every common form parser reads it,
 * and some read nothing else (Express's `urlencoded()`, Go's `ParseForm`); it needs no random
 * boundary, so its exact text can be shown to the user, bound into the quote's nonce and sent
 * unchanged; and it stays short enough to travel in a wallet approval.
 */
import { z } from "zod";
import type { BodyType } from "./input-contract";
import { withinJsonLimits } from "../json-limits";
import { REQUEST_CONTENT_TYPES, RequestContentType } from "../stream/wire-primitives";

export const BODY_TYPES = ["json", "form-data", "text"] as const satisfies readonly BodyType[];

/** The content type each body type is sent with; the only ones a paid request may carry. */
export const BODY_CONTENT_TYPES = REQUEST_CONTENT_TYPES satisfies Record<BodyType, string>;

export { RequestContentType };

/** A body sent without a named type was sent as JSON before types existed, and still is. */
export const DEFAULT_CONTENT_TYPE: RequestContentType = BODY_CONTENT_TYPES.json;

/** The longest body a paid request carries (a wallet approval allows less, see events.ts). */
export const MAX_REQUEST_BODY_CHARS = 16_384;
const MAX_FORM_FIELDS = 64;
const MAX_FIELD_NAME_CHARS = 100;
/** Objects from the model are bounded before they are serialized. */
const JSON_BODY_LIMITS = { maxDepth: 32, maxNodes: 2_000, maxStringChars: MAX_REQUEST_BODY_CHARS } as const;

/** What the tool accepts as a body: fields (for a JSON or form body) or text. */
export const RequestBodyValue = z.union([z.record(z.string(), z.unknown()), z.string().max(MAX_REQUEST_BODY_CHARS)]);
export type RequestBodyValue = z.infer<typeof RequestBodyValue>;

export type EncodedBody = { type: BodyType; text: string; contentType: RequestContentType };
export type BodyEncoding = { ok: true; body: EncodedBody } | { ok: false; problem: string };

/** The type to send: the caller's choice, else the service's declaration, else what the value looks like. */
export function chooseBodyType(value: RequestBodyValue, requested?: BodyType, declared?: BodyType): BodyType {
  return requested ?? declared ?? (typeof value === "string" ? "text" : "json");
}

/** Encodes `value` as a `type` body, or says in a few words why it cannot be one. */
export function encodeRequestBody(value: unknown, type: BodyType): BodyEncoding {
  const parsed = RequestBodyValue.safeParse(value);
  if (!parsed.success) {
    return {
      ok: false,
      problem: typeof value === "string" ? `the body is longer than ${MAX_REQUEST_BODY_CHARS} characters` : "the body must be an object of fields or a string",
    };
  }
  const encoded = type === "json" ? jsonText(parsed.data) : type === "form-data" ? formText(parsed.data) : plainText(parsed.data);
  if (!encoded.ok) return encoded;
  if (encoded.text.length > MAX_REQUEST_BODY_CHARS) return { ok: false, problem: `the encoded body is longer than ${MAX_REQUEST_BODY_CHARS} characters` };
  if (LONE_SURROGATE.test(encoded.text)) return { ok: false, problem: "the body holds text that is not valid Unicode" };
  return { ok: true, body: { type, text: encoded.text, contentType: BODY_CONTENT_TYPES[type] } };
}

/** The body type a content type stands for; JSON when none was named (see DEFAULT_CONTENT_TYPE). */
export function bodyTypeOf(contentType: string | undefined): BodyType | undefined {
  return BODY_TYPES.find((type) => BODY_CONTENT_TYPES[type] === (contentType ?? DEFAULT_CONTENT_TYPE));
}

/** How a body type is named to a model or a person. */
export function describeBodyType(type: BodyType): string {
  return type === "json" ? "JSON" : type === "form-data" ? "form (form-data)" : "text";
}

type Text = { ok: true; text: string } | { ok: false; problem: string };

function jsonText(value: RequestBodyValue): Text {
  if (typeof value === "string") {
    // A model sometimes writes the JSON as a string: sent as written, once it is JSON.
    try {
      JSON.parse(value);
    } catch {
      return { ok: false, problem: "a JSON body must be an object of fields (or valid JSON text)" };
    }
    return { ok: true, text: value };
  }
  if (!withinJsonLimits(value, JSON_BODY_LIMITS)) return { ok: false, problem: "the JSON body nests too deeply or holds too many values" };
  return { ok: true, text: JSON.stringify(value) };
}

function formText(value: RequestBodyValue): Text {
  if (typeof value === "string") return { ok: false, problem: "a form body must be an object of fields, not a string" };
  const entries = Object.entries(value);
  if (entries.length > MAX_FORM_FIELDS) return { ok: false, problem: `a form body holds at most ${MAX_FORM_FIELDS} fields` };
  const fields = new URLSearchParams();
  for (const [name, field] of entries) {
    if (name === "" || name.length > MAX_FIELD_NAME_CHARS) return { ok: false, problem: `form field names are 1 to ${MAX_FIELD_NAME_CHARS} characters` };
    // URL-encoding would silently replace broken Unicode; refused instead, like in any other body.
    if (LONE_SURROGATE.test(name) || (typeof field === "string" && LONE_SURROGATE.test(field)))
      return { ok: false, problem: "the body holds text that is not valid Unicode" };
    // A form carries flat text: numbers and true/false read as their usual text; nothing nested.
    if (typeof field === "string") fields.append(name, field);
    else if ((typeof field === "number" && Number.isFinite(field)) || typeof field === "boolean") fields.append(name, String(field));
    else return { ok: false, problem: `form field ${JSON.stringify(name)} is ${kindOf(field)}; a form field holds text, a number or true/false` };
  }
  return { ok: true, text: fields.toString() };
}

function plainText(value: RequestBodyValue): Text {
  if (typeof value !== "string") return { ok: false, problem: "a text body must be a string, not an object of fields" };
  if (value.trim() === "") return { ok: false, problem: "the text body is empty" };
  return { ok: true, text: value };
}

function kindOf(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "a list";
  if (typeof value === "number") return "not a finite number";
  return typeof value === "object" ? "an object" : `a ${typeof value}`;
}

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
