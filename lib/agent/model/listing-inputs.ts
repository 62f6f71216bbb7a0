/**
 * A listing as the offline demo model sees it in a `discover_services` result (the same words a
 * real model reads), and the inputs it declares: names, where they go (query, path, body),
 * whether required, their descriptions and example values. Read from the listing's example call
 * (lib/x402/call-usage.ts `exampleCall`) and its one-line usage (`describeInputContract`), whose
 * format this module reads back; everything is the service's own text, read leniently.
 */
import { z } from "zod";
import { readChoicesText } from "../../x402/choice-text";
import { CALL_METHODS, type CallMethod } from "../../x402/input-contract";
import { ServiceEvidence } from "../../stream/service-evidence";

const text = (max: number) => z.string().max(max).optional().catch(undefined);

export const ServiceEntry = z.looseObject({
  name: text(200),
  resource: text(2048),
  price: text(40),
  description: text(1000),
  tags: z.array(z.string().max(64)).max(20).optional().catch(undefined),
  usage: text(1000),
  example: z
    .looseObject({
      method: text(10),
      url: text(2048),
      query: z.array(z.string().max(64)).max(20).optional().catch(undefined),
      path: z.record(z.string(), z.string().max(200)).optional().catch(undefined),
      template: text(2048),
      body: z.record(z.string(), z.unknown()).optional().catch(undefined),
    })
    .optional()
    .catch(undefined),
  /** What discovery knows of it (lib/evidence): among equals, the one whose evidence is better. */
  evidence: ServiceEvidence.optional().catch(undefined),
});
/** A listing; `mcp` is set on a paid MCP tool's (mcp-entries.ts), never read from a result's services. */
export type ServiceEntry = z.infer<typeof ServiceEntry> & { mcp?: McpTarget };

export type InputField = {
  name: string;
  in: "query" | "path" | "body";
  required: boolean;
  type?: string;
  description?: string;
  /** The service's example value, as it declared it (a number stays a number in a JSON body). */
  example?: unknown;
  /** The only values it takes, where the listing declares them (an MCP tool's or an HTTP listing's schema `enum`). */
  choices?: readonly unknown[];
};

export type ListingInputs = {
  method: CallMethod;
  /** The resource with its `:name` path segments, when it is a route template. */
  template: string;
  fields: InputField[];
  bodyType?: "json" | "form-data" | "text";
};

/** What a demo call to an MCP tool needs besides its arguments (mcp-entries.ts reads it). */
export type McpTarget = { endpoint: string; tool: string; inputs: ListingInputs };

/** The entries of a `discover_services` result; anything unreadable is left out. */
export function entriesOf(value: unknown): ServiceEntry[] {
  const services = z.looseObject({ services: z.array(z.unknown()).max(100) }).safeParse(value);
  if (!services.success) return [];
  return services.data.services.flatMap((raw) => {
    const entry = ServiceEntry.safeParse(raw);
    // `mcp` is ours to set: a service's listing naming one is not taken for an MCP tool.
    return entry.success && entry.data.resource ? [{ ...entry.data, mcp: undefined }] : [];
  });
}

const NAME = "[A-Za-z0-9_.\\-\\[\\]]{1,40}";

export function inputsOf(entry: ServiceEntry): ListingInputs {
  if (entry.mcp) return entry.mcp.inputs;
  const example = entry.example;
  const usage = entry.usage ?? "";
  const template = example?.template ?? entry.resource ?? "";
  const fields = new Map<string, InputField>();
  const add = (field: InputField) => {
    const key = `${field.in}:${field.name}`;
    const known = fields.get(key);
    fields.set(key, known ? { ...known, ...definedOnly(field), required: known.required || field.required } : field);
  };

  const queryExamples = queryOf(example?.url);
  for (const name of example?.query ?? []) add({ name, in: "query", required: false, ...withExample(queryExamples.get(name)) });
  for (const name of pathNames(template)) add({ name, in: "path", required: true, ...withExample(example?.path?.[name]) });
  for (const [name, value] of Object.entries(example?.body ?? {})) add({ name, in: "body", required: false, example: value });

  // The usage line: `name=<type, required, e.g. X: description>` for path and query parameters,
  // `"name": type, required, e.g. X: description` inside `… body {…}`; a declared set stands in
  // place of the type (`one of: sales, traffic`).
  const bodyMatch = /\b(JSON|json|form-data|text) body \{(.*?)\}(?: example body |$)/s.exec(usage);
  const beforeBody = bodyMatch ? usage.slice(0, bodyMatch.index) : usage;
  for (const match of beforeBody.matchAll(new RegExp(`(?:^|[\\s,?&])(${NAME})=<([^<>]*)>`, "g"))) {
    const name = match[1]!;
    const place = pathNames(template).includes(name) ? "path" : "query";
    add({ name, in: place, ...readDetail(match[2]!, fields.get(`${place}:${name}`)?.example) });
  }
  if (bodyMatch) {
    for (const part of bodyMatch[2]!.split(new RegExp(`,\\s*(?="${NAME}": )`))) {
      const field = new RegExp(`^"(${NAME})": (.*)$`, "s").exec(part.trim());
      if (field) add({ name: field[1]!, in: "body", ...readDetail(field[2]!, fields.get(`body:${field[1]}`)?.example) });
    }
  }

  const declared = (example?.method ?? /^[A-Z]+/.exec(usage)?.[0] ?? "GET").toUpperCase();
  const method = (CALL_METHODS as readonly string[]).includes(declared) ? (declared as CallMethod) : "GET";
  const bodyWord = bodyMatch?.[1]?.toLowerCase();
  const bodyType = bodyWord === "json" ? "json" : bodyWord === "form-data" ? "form-data" : bodyWord === "text" ? "text" : example?.body ? "json" : undefined;
  return { method, template, fields: [...fields.values()], ...(bodyType ? { bodyType } : {}) };
}

/** `type | one of: A, B[, required][, e.g. EXAMPLE][: description]`, the example known or read up to the description. */
function readDetail(detail: string, knownExample: unknown): Omit<InputField, "name" | "in"> {
  let rest = detail.trim();
  const set = readChoicesText(rest);
  const type = set ? undefined : /^([a-z]{1,16})\b/.exec(rest)?.[1];
  if (set) rest = set.rest;
  else if (type) rest = rest.slice(type.length);
  const required = /^,\s*required\b/.test(rest);
  if (required) rest = rest.replace(/^,\s*required/, "");
  let example: unknown = knownExample;
  const known = knownExample === undefined ? undefined : typeof knownExample === "string" ? knownExample : JSON.stringify(knownExample);
  if (known !== undefined && rest.startsWith(`, e.g. ${known}`)) rest = rest.slice(`, e.g. ${known}`.length);
  else if (rest.startsWith(", e.g. ")) {
    const read = /^, e\.g\. (.*?)(?=: |$)/s.exec(rest);
    if (example === undefined && read?.[1]) example = read[1];
    rest = rest.slice(read?.[0].length ?? 0);
  }
  const description = /^:\s*(.+)$/s.exec(rest)?.[1]?.trim();
  return {
    required,
    ...(type && type !== "value" ? { type } : {}),
    ...(description ? { description } : {}),
    ...withExample(example),
    ...(set?.choices ? { choices: set.choices } : {}),
  };
}

function withExample(value: unknown): { example?: unknown } {
  return value === undefined || value === "" ? {} : { example: value };
}

function definedOnly(field: InputField): Partial<InputField> {
  return Object.fromEntries(Object.entries(field).filter(([, value]) => value !== undefined)) as Partial<InputField>;
}

function queryOf(url: string | undefined): Map<string, string> {
  try {
    return new Map(new URL(url ?? "").searchParams);
  } catch {
    return new Map();
  }
}

/** The `:name` segments of a route template. */
export function pathNames(template: string): string[] {
  let pathname: string;
  try {
    pathname = new URL(template).pathname;
  } catch {
    return [];
  }
  return pathname.split("/").flatMap((segment) => {
    const name = /^:([A-Za-z_][\w-]*)$/.exec(segment)?.[1];
    return name ? [name] : [];
  });
}
