/**
 * One declared field of a service's input, read from the service's own text: a v2 bazaar
 * schema property or a v1 field description, with its name, type, whether it is required, its
 * description, example and the set of values it takes (`enum`). Read leniently (a malformed
 * part is left out), cleaned and bounded, so a listing stays small and cannot speak for us.
 */
import { z } from "zod";
import type { Choice, ParameterSpec } from "./input-contract";
import { sanitizeServiceText } from "./service-text";

const MAX_PARAMETERS = 12;
const MAX_NAME_CHARS = 40;
const MAX_DESCRIPTION_CHARS = 120;
/** A declared set is kept whole or not at all (see `declaredChoices`): these bound it. */
export const MAX_CHOICES = 64;
export const MAX_CHOICE_CHARS = 100;

const AnyRecord = z.record(z.string(), z.unknown());

/** A JSON schema of named fields, as the bazaar declares query, path and body parameters. */
export const ParamMapSchema = z.looseObject({ properties: AnyRecord.optional().catch(undefined), required: z.array(z.string()).optional().catch(undefined) });

/** v2: names from the example values and the schema's properties; types, required, descriptions and sets from the schema. */
export function parameters(examples: Record<string, unknown> | undefined, schema: z.infer<typeof ParamMapSchema> | undefined): ParameterSpec[] {
  const names = [...new Set([...Object.keys(schema?.properties ?? {}), ...Object.keys(examples ?? {})])];
  const required = new Set(schema?.required ?? []);
  const specs: ParameterSpec[] = [];
  for (const raw of names) {
    const name = parameterName(raw);
    if (!name) continue;
    const property = AnyRecord.safeParse(schema?.properties?.[raw]);
    const spec: ParameterSpec = { name, required: required.has(raw) };
    if (property.success) describeField(spec, property.data);
    if (examples && raw in examples) spec.example = exampleText(examples[raw], 60);
    specs.push(spec);
    if (specs.length === MAX_PARAMETERS) break;
  }
  return specs;
}

/** v1: each field is a type name ("string") or a description ({ type, required, description, enum }). */
export function fieldDescriptions(fields: Record<string, unknown> | undefined): ParameterSpec[] {
  const specs: ParameterSpec[] = [];
  for (const [raw, field] of Object.entries(fields ?? {})) {
    const name = parameterName(raw);
    if (!name) continue;
    const spec: ParameterSpec = { name, required: false };
    if (typeof field === "string") spec.type = typeName(field);
    else {
      const described = AnyRecord.safeParse(field);
      if (described.success) {
        describeField(spec, described.data);
        spec.required = described.data.required === true;
      }
    }
    specs.push(spec);
    if (specs.length === MAX_PARAMETERS) break;
  }
  return specs;
}

function describeField(spec: ParameterSpec, field: Record<string, unknown>): void {
  const type = typeName(field.type);
  if (type) spec.type = type;
  if (typeof field.description === "string") {
    const description = sanitizeServiceText(field.description, MAX_DESCRIPTION_CHARS);
    if (description) spec.description = description;
  }
  const choices = declaredChoices(field.enum);
  if (choices) spec.choices = choices;
}

/**
 * A field's `enum`, whole or not at all: strings and finite numbers, at most `MAX_CHOICES`
 * values of at most `MAX_CHOICE_CHARS` visible characters each. A set we cannot keep whole
 * (too long, a value cut or cleaned, a value of another kind) is left out, since a part of it
 * would make the call check refuse values the service takes; the service still checks its own.
 *
 * @example
 * declaredChoices(["sales", "traffic"]); // ["sales", "traffic"]
 * declaredChoices(["sales", null]); // undefined
 */
export function declaredChoices(value: unknown): Choice[] | undefined {
  if (!Array.isArray(value) || value.length === 0 || value.length > MAX_CHOICES) return undefined;
  const choices: Choice[] = [];
  for (const item of value as unknown[]) {
    if (typeof item === "number" && Number.isFinite(item)) choices.push(item);
    else if (typeof item === "string" && sanitizeServiceText(item, MAX_CHOICE_CHARS) === item) choices.push(item);
    else return undefined;
  }
  return [...new Set(choices)];
}

/** A parameter name as a service may use one in a URL or a JSON body; anything else is dropped. */
function parameterName(raw: string): string | undefined {
  return /^[A-Za-z0-9_.\-[\]]{1,40}$/.test(raw) && raw.length <= MAX_NAME_CHARS ? raw : undefined;
}

function typeName(value: unknown): string | undefined {
  return typeof value === "string" && /^[a-z]{1,16}$/.test(value) ? value : undefined;
}

/** A declared example (any JSON) as bounded, clean text. */
export function exampleText(value: unknown, maxChars: number): string {
  let text: string;
  try {
    text = typeof value === "string" ? value : (JSON.stringify(value) ?? "");
  } catch {
    text = "";
  }
  return sanitizeServiceText(text, maxChars);
}
