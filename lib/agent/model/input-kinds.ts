/**
 * What kind of value a listing's declared input takes (a number, an e-mail, an id, a language, a
 * currency, a code, a place, a text or a topic), read from its name, description, type and
 * example: how the call planner (call-plan.ts) knows what in a request can fill it.
 */
import type { InputField } from "./listing-inputs";
import { isCurrencyCode } from "./request-vocabulary";
import { contentStems, stem } from "./words";

export type Kind = "number" | "email" | "id" | "pair" | "language" | "currency" | "code" | "place" | "text" | "topic";

/** Input names that hold a language ("to", "target_lang"). */
export const LANGUAGE_NAMES = new Set(["lang", "language", "locale", "to", "from", "target", "source", "target_lang", "source_lang"]);
const PLACE_WORDS = ["city", "place", "location", "town", "region", "country", "destination", "address", "area", "where"].map(stem);
const TEXT_WORDS = ["text", "content", "message", "body", "sentence", "paragraph", "passage", "input", "document", "note", "prompt"].map(stem);
const CODE_WORDS = ["ticker", "symbol", "code", "stock", "share"].map(stem);

/** The words a field is described by: its name and description, stemmed. */
export function fieldStems(field: InputField): string[] {
  return contentStems(`${field.name.replace(/[_.-]+/g, " ")} ${field.description ?? ""}`);
}

export function exampleText(field: InputField): string {
  return field.example === undefined || field.example === null ? "" : typeof field.example === "string" ? field.example : JSON.stringify(field.example);
}

export function kindOf(field: InputField): Kind {
  const words = fieldStems(field);
  const has = (list: readonly string[]) => list.some((word) => words.includes(word));
  const example = exampleText(field);
  if (field.type === "integer" || field.type === "number" || typeof field.example === "number" || /^\d+(\.\d+)?$/.test(example)) return "number";
  if (example.includes("@") || words.includes("email")) return "email";
  if (/^[A-Za-z]{1,12}-\d{1,9}$/.test(example) || (field.name.toLowerCase() === "id" && !example)) return "id";
  if (/^[A-Z0-9]{2,10}[-/][A-Z0-9]{2,10}$/.test(example)) return "pair";
  if (words.includes(stem("language")) || (LANGUAGE_NAMES.has(field.name.toLowerCase()) && /^[a-z]{2}(-[A-Z]{2})?$/.test(example))) return "language";
  if (words.includes(stem("currency")) || (example.length === 3 && isCurrencyCode(example) && example === example.toUpperCase())) return "currency";
  if (/^[A-Z][A-Z0-9.]{0,9}$/.test(example) || has(CODE_WORDS)) return "code";
  if (has(PLACE_WORDS)) return "place";
  if (has(TEXT_WORDS) || example.length > 40) return "text";
  return "topic";
}
