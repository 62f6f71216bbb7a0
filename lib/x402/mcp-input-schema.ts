/**
 * An MCP tool's `inputSchema` (JSON Schema, as `tools/list` and the Bazaar declare it) put to
 * use: the arguments a model chose are checked against it before anything is sent, and the
 * model is shown it in one line. The check is a deliberate subset of JSON Schema, the part
 * tool schemas use: `type` (one or a list), `enum`, `const`, `required`, `properties`,
 * `additionalProperties: false`, string and array lengths, number bounds, and `items`, nested
 * to a bounded depth. Keywords outside it are not enforced: the server still checks its own
 * input, and a call it refuses before payment costs nothing.
 */
import { z } from "zod";
import { withinJsonLimits } from "../json-limits";
import { sanitizeServiceText } from "./service-text";

/** A schema larger or deeper than this is not a tool's argument list: refused as a declaration. */
export const INPUT_SCHEMA_LIMITS = { maxDepth: 12, maxNodes: 800, maxStringChars: 2_000 } as const;
/** How deep the argument check descends (objects in arrays in objects…). */
const MAX_CHECK_DEPTH = 6;
/** Problems reported at most, so a hostile schema cannot make a message of any length. */
const MAX_PROBLEMS = 8;
const MAX_USAGE_CHARS = 700;
const MAX_FIELDS_SHOWN = 12;

const JSON_TYPES = ["string", "number", "integer", "boolean", "object", "array", "null"] as const;
type JsonType = (typeof JSON_TYPES)[number];

const Schema = z.looseObject({
  type: z
    .union([z.enum(JSON_TYPES), z.array(z.enum(JSON_TYPES)).max(7)])
    .optional()
    .catch(undefined),
  enum: z.array(z.unknown()).max(200).optional().catch(undefined),
  const: z.unknown().optional(),
  properties: z.record(z.string(), z.unknown()).optional().catch(undefined),
  required: z.array(z.string()).max(200).optional().catch(undefined),
  additionalProperties: z.unknown().optional(),
  items: z.unknown().optional(),
  minLength: z.number().int().min(0).optional().catch(undefined),
  maxLength: z.number().int().min(0).optional().catch(undefined),
  minimum: z.number().optional().catch(undefined),
  maximum: z.number().optional().catch(undefined),
  minItems: z.number().int().min(0).optional().catch(undefined),
  maxItems: z.number().int().min(0).optional().catch(undefined),
  description: z.string().optional().catch(undefined),
});
type Schema = z.infer<typeof Schema>;

/**
 * The input schema a listing or a server declared, when it is one a tool can have: an object
 * schema (MCP's `Tool.inputSchema` is always `type: "object"`), within bounds.
 */
export function readInputSchema(value: unknown): Record<string, unknown> | undefined {
  if (value === null || typeof value !== "object" || Array.isArray(value)) return undefined;
  if (!withinJsonLimits(value, INPUT_SCHEMA_LIMITS)) return undefined;
  const parsed = Schema.safeParse(value);
  if (!parsed.success) return undefined;
  const type = parsed.data.type;
  if (type !== undefined && type !== "object" && !(Array.isArray(type) && type.includes("object"))) return undefined;
  return value as Record<string, unknown>;
}

/**
 * What is wrong with `args` for `schema` (JSON pointers into the arguments, in plain words);
 * empty when they fit.
 *
 * @example
 * checkArguments({ type: "object", required: ["text"], properties: { text: { type: "string" } } }, {});
 * // ["text is required"]
 */
export function checkArguments(schema: Record<string, unknown>, args: unknown): string[] {
  const problems: string[] = [];
  check(schema, args, "", 0, problems);
  return problems.slice(0, MAX_PROBLEMS);
}

function check(raw: unknown, value: unknown, path: string, depth: number, problems: string[]): void {
  if (problems.length >= MAX_PROBLEMS || depth > MAX_CHECK_DEPTH) return;
  // `true` and `{}` accept anything; `false` accepts nothing.
  if (raw === false) {
    problems.push(`${name(path)} is not allowed`);
    return;
  }
  const parsed = Schema.safeParse(raw);
  if (!parsed.success) return;
  const schema = parsed.data;
  const types = schema.type === undefined ? undefined : Array.isArray(schema.type) ? schema.type : [schema.type];
  if (types && !types.some((type) => isType(value, type))) {
    problems.push(`${name(path)} must be ${types.map(article).join(" or ")}${value === undefined ? "" : `, not ${describeValue(value)}`}`);
    return;
  }
  if ("const" in schema && schema.const !== undefined && !sameJson(value, schema.const)) {
    problems.push(`${name(path)} must be ${short(schema.const)}`);
    return;
  }
  if (schema.enum && !schema.enum.some((option) => sameJson(value, option))) {
    problems.push(`${name(path)} must be one of ${schema.enum.slice(0, 12).map(short).join(", ")}`);
    return;
  }
  if (typeof value === "string") {
    const length = [...value].length;
    if (schema.minLength !== undefined && length < schema.minLength) problems.push(`${name(path)} must be at least ${schema.minLength} characters`);
    if (schema.maxLength !== undefined && length > schema.maxLength) problems.push(`${name(path)} must be at most ${schema.maxLength} characters`);
  }
  if (typeof value === "number") {
    if (schema.minimum !== undefined && value < schema.minimum) problems.push(`${name(path)} must be at least ${schema.minimum}`);
    if (schema.maximum !== undefined && value > schema.maximum) problems.push(`${name(path)} must be at most ${schema.maximum}`);
  }
  if (Array.isArray(value)) {
    if (schema.minItems !== undefined && value.length < schema.minItems) problems.push(`${name(path)} must have at least ${schema.minItems} items`);
    if (schema.maxItems !== undefined && value.length > schema.maxItems) problems.push(`${name(path)} must have at most ${schema.maxItems} items`);
    if (schema.items !== undefined && !Array.isArray(schema.items)) {
      for (const [index, item] of value.slice(0, 50).entries()) check(schema.items, item, `${path}/${index}`, depth + 1, problems);
    }
  }
  if (isObject(value)) {
    for (const key of schema.required ?? []) {
      if (!(key in value)) problems.push(`${name(`${path}/${key}`)} is required`);
    }
    const properties = schema.properties ?? {};
    for (const [key, field] of Object.entries(value)) {
      if (key in properties) check(properties[key], field, `${path}/${key}`, depth + 1, problems);
      else if (schema.additionalProperties === false) problems.push(`${name(`${path}/${key}`)} is not a parameter of this tool`);
      else if (schema.additionalProperties !== undefined && typeof schema.additionalProperties === "object")
        check(schema.additionalProperties, field, `${path}/${key}`, depth + 1, problems);
    }
  }
}

function isType(value: unknown, type: JsonType): boolean {
  switch (type) {
    case "string":
      return typeof value === "string";
    case "number":
      return typeof value === "number" && Number.isFinite(value);
    case "integer":
      return typeof value === "number" && Number.isInteger(value);
    case "boolean":
      return typeof value === "boolean";
    case "null":
      return value === null;
    case "array":
      return Array.isArray(value);
    case "object":
      return isObject(value);
  }
}

function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}

function sameJson(left: unknown, right: unknown): boolean {
  return JSON.stringify(left) === JSON.stringify(right);
}

/** `/text` → "text", `/items/0/name` → "items[0].name", the root → "the arguments". */
function name(path: string): string {
  if (path === "") return "the arguments";
  return path
    .slice(1)
    .split("/")
    .map((part, index) => (/^\d+$/.test(part) ? `[${part}]` : index === 0 ? part : `.${part}`))
    .join("");
}

function article(type: string): string {
  return type === "integer" || type === "object" || type === "array" ? `an ${type}` : type === "null" ? "null" : `a ${type}`;
}

function describeValue(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  return typeof value === "object" ? "an object" : `a ${typeof value}`;
}

function short(value: unknown): string {
  return sanitizeServiceText(JSON.stringify(value) ?? "", 40);
}

/**
 * The schema in one line a model can follow, e.g.
 * `{"text": string, required: The text; "target": one of "fr", "es", required}`.
 */
export function describeInputSchema(schema: Record<string, unknown>): string {
  const parsed = Schema.safeParse(schema);
  if (!parsed.success) return "arguments: an object";
  const required = new Set(parsed.data.required ?? []);
  const fields = Object.entries(parsed.data.properties ?? {})
    .slice(0, MAX_FIELDS_SHOWN)
    .map(([key, raw]) => {
      const field = Schema.safeParse(raw);
      const words: string[] = [];
      if (field.success && field.data.enum) words.push(`one of ${field.data.enum.slice(0, 12).map(short).join(", ")}`);
      else if (field.success && field.data.type) words.push(Array.isArray(field.data.type) ? field.data.type.join("|") : field.data.type);
      else words.push("value");
      if (required.has(key)) words.push("required");
      const description = field.success && field.data.description ? `: ${sanitizeServiceText(field.data.description, 100)}` : "";
      return `${JSON.stringify(sanitizeServiceText(key, 40))}: ${words.join(", ")}${description}`;
    });
  return sanitizeServiceText(`arguments {${fields.join("; ")}}`, MAX_USAGE_CHARS);
}
