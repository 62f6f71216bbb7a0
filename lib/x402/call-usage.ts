/**
 * A service's declared input (input-contract.ts) put to use: one line a model and the page can
 * read, and an example call built from the service's own examples.
 */
import { choicesText } from "./choice-text";
import { sanitizeServiceText } from "./service-text";
import type { CallMethod, InputContract, ParameterSpec } from "./input-contract";

/** The one-line description a model and the page see, at most. */
export const MAX_USAGE_CHARS = 700;

/**
 * One line a model can follow, e.g. `GET ?city=<string, required: City name>`,
 * `GET ?dataset=<one of: sales, traffic, required>` (a declared set in place of the type) or
 * `POST /v1/items/:id (id=<string, required>) JSON body {"text": string (required)}`.
 */
export function describeInputContract(contract: InputContract): string {
  const parts: string[] = [contract.method];
  if (contract.routeTemplate) parts.push(contract.routeTemplate);
  if (contract.path.length > 0) parts.push(`path ${contract.path.map((parameter) => `${parameter.name}=<${detail(parameter)}>`).join(", ")}`);
  if (contract.query.length > 0) parts.push(`?${contract.query.map((parameter) => `${parameter.name}=<${detail(parameter)}>`).join("&")}`);
  if (contract.body) {
    const fields = contract.body.fields.map((field) => `${JSON.stringify(field.name)}: ${detail(field)}`).join(", ");
    parts.push(`${contract.body.type === "json" ? "JSON" : contract.body.type} body {${fields}}`);
    if (contract.body.example) parts.push(`example body ${contract.body.example}`);
  }
  return sanitizeServiceText(parts.join(" "), MAX_USAGE_CHARS);
}

function detail(parameter: ParameterSpec): string {
  const words = [parameter.choices ? choicesText(parameter.choices) : (parameter.type ?? "value")];
  if (parameter.required) words.push("required");
  if (parameter.example !== undefined && parameter.example !== "") words.push(`e.g. ${parameter.example}`);
  return parameter.description ? `${words.join(", ")}: ${parameter.description}` : words.join(", ");
}

export type ExampleCall = {
  method: CallMethod;
  url: string;
  /** Every query parameter the service declared, with an example value or not. */
  query: string[];
  /**
   * Path parameters with their example values, when the resource is a route template
   * (`/stocks/:symbol`): `url` has them filled in, and `template` is the resource as listed.
   */
  path?: Record<string, string>;
  template?: string;
  body?: Record<string, unknown>;
};

/**
 * A call built from the service's own examples: its query parameters set to their example
 * values and, for a JSON or form body, the example body. A model (the demo model included) starts from
 * it and puts the user's words where they belong.
 */
export function exampleCall(resource: string, contract: InputContract): ExampleCall | undefined {
  let url: URL;
  try {
    url = new URL(resource);
  } catch {
    return undefined;
  }
  for (const parameter of contract.query) {
    if (parameter.example !== undefined && parameter.example !== "" && !url.searchParams.has(parameter.name))
      url.searchParams.set(parameter.name, parameter.example);
  }
  const pathExamples = Object.fromEntries(contract.path.flatMap((parameter) => (parameter.example ? [[parameter.name, parameter.example] as const] : [])));
  const template = url.toString();
  const filled = fillRouteTemplate(template, pathExamples);
  const call: ExampleCall = { method: contract.method, url: filled, query: contract.query.map((parameter) => parameter.name) };
  if (filled !== template) {
    call.path = pathExamples;
    call.template = template;
  }
  // A form's example is an object of fields too; the call sends it as the form it was declared.
  if ((contract.body?.type === "json" || contract.body?.type === "form-data") && contract.body.example) {
    try {
      const body = JSON.parse(contract.body.example) as unknown;
      if (body && typeof body === "object" && !Array.isArray(body)) call.body = body as Record<string, unknown>;
    } catch {
      // A cut example is no example.
    }
  }
  return call.url.length <= 2048 ? call : undefined;
}

/**
 * A listed route template's `:name` segments replaced by the given values (percent-encoded, so
 * a value cannot add path segments); segments without a value stay as they are, and the call
 * check then names them as not filled in. The bazaar spec lists a dynamic route as its origin
 * plus `routeTemplate`, so a resource URL may carry such segments.
 */
export function fillRouteTemplate(resource: string, values: Readonly<Record<string, string>>): string {
  let url: URL;
  try {
    url = new URL(resource);
  } catch {
    return resource;
  }
  url.pathname = url.pathname
    .split("/")
    .map((segment) => {
      const name = /^:([A-Za-z_][\w-]*)$/.exec(segment)?.[1];
      const value = name === undefined ? undefined : values[name];
      return value === undefined || value === "" ? segment : encodeURIComponent(value);
    })
    .join("/");
  return url.toString();
}
