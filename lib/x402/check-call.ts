/**
 * Checks a call against what the service declared (input-contract.ts) before anything is asked
 * of it: a call that cannot succeed is refused with a message naming what is wrong, so no quote
 * is made and nothing is signed. Only what the service declared is checked; a service that
 * declared nothing gets the call as it is.
 */
import { choiceText } from "./choice-text";
import type { InputContract, ParameterSpec } from "./input-contract";
import { bodyTypeOf, describeBodyType } from "./request-body";
import { sanitizeServiceText } from "./service-text";

/** Allowed values a refusal names at most, so a long set cannot make a message of any length. */
const MAX_CHOICES_NAMED = 12;

/** `contentType` is the body's as it will be sent; none means JSON (request-body.ts). */
export type PlannedCall = { url: string; method: string; body?: string; contentType?: string };

export type CallCheck = { ok: true } | { ok: false; problems: string[] };

export function checkCall(contract: InputContract, call: PlannedCall): CallCheck {
  const problems: string[] = [];
  const method = call.method.toUpperCase();
  if (!contract.methodInferred && method !== contract.method) problems.push(`the service is called with ${contract.method}, not ${method}`);

  let url: URL | undefined;
  try {
    url = new URL(call.url);
  } catch {
    problems.push("the URL is not a valid absolute URL");
  }
  if (url) {
    const missing = contract.query.filter((parameter) => parameter.required && !url.searchParams.get(parameter.name)?.trim());
    if (missing.length > 0) problems.push(`missing query parameter${missing.length === 1 ? "" : "s"} ${names(missing)}`);
    const unfilled = unfilledPathProblem(url);
    if (unfilled) problems.push(unfilled);
    for (const parameter of contract.query) problems.push(...outsideSet(parameter, url.searchParams.getAll(parameter.name)));
    const pathValues = routeValues(contract.routeTemplate, url);
    for (const parameter of contract.path) problems.push(...outsideSet(parameter, pathValues.has(parameter.name) ? [pathValues.get(parameter.name)] : []));
  }

  if (contract.body) {
    const declared = contract.body.type;
    const required = contract.body.fields.filter((field) => field.required);
    const sent = bodyTypeOf(call.contentType);
    if (call.body === undefined || call.body === "") {
      problems.push(`the service needs a ${describeBodyType(declared)} body${required.length > 0 ? ` with ${names(required)}` : ""}`);
    } else if (sent !== declared) {
      // A service reads its body one way: fields sent another way would arrive as nothing it knows.
      problems.push(
        `the service takes a ${describeBodyType(declared)} body, not ${sent ? `a ${describeBodyType(sent)} body` : `a body of type ${call.contentType}`}`,
      );
    } else if (declared === "json") {
      let parsed: unknown;
      try {
        parsed = JSON.parse(call.body);
      } catch {
        problems.push("the body is not valid JSON");
      }
      if (parsed !== undefined) {
        const isObject = typeof parsed === "object" && parsed !== null && !Array.isArray(parsed);
        const missing = required.filter((field) => !isObject || (parsed as Record<string, unknown>)[field.name] === undefined);
        if (missing.length > 0) problems.push(`missing body field${missing.length === 1 ? "" : "s"} ${names(missing)}`);
        if (isObject) for (const field of contract.body.fields) problems.push(...outsideSet(field, [(parsed as Record<string, unknown>)[field.name]]));
      }
    } else if (declared === "form-data") {
      const fields = new URLSearchParams(call.body);
      const missing = required.filter((field) => !fields.has(field.name));
      if (missing.length > 0) problems.push(`missing form field${missing.length === 1 ? "" : "s"} ${names(missing)}`);
      for (const field of contract.body.fields) problems.push(...outsideSet(field, fields.getAll(field.name)));
    } else if (call.body.trim() === "") {
      problems.push("the text body is empty");
    }
  } else if (call.body !== undefined && (method === "GET" || method === "HEAD" || method === "DELETE")) {
    problems.push(`a ${method} request carries no body`);
  }
  return problems.length === 0 ? { ok: true } : { ok: false, problems };
}

/**
 * A route template's placeholders (`:id`, `{id}`) left in a URL's path: they were never filled
 * in, so the call would ask (and pay) for the template itself. Checked for every call, with or
 * without a declaration: a listing without one still lists a dynamic route by its template.
 *
 * @example
 * unfilledPathProblem(new URL("https://api.example/crypto/:symbol")); // "path parameter not filled in: :symbol"
 */
export function unfilledPathProblem(url: URL): string | undefined {
  const unfilled = safeDecode(url.pathname).match(/(^|\/)(:[A-Za-z_][\w-]*|\{[A-Za-z_][\w-]*\})(?=\/|$)/g);
  if (!unfilled) return undefined;
  return `path parameter${unfilled.length === 1 ? "" : "s"} not filled in: ${unfilled.map((part) => part.replace(/^\//, "")).join(", ")}`;
}

/**
 * A value given for a field with a declared set (its `enum`) that is not one of it: the service
 * would refuse it, so it is refused here, before any quote, naming the values it takes. A field
 * not given (`undefined`) is a matter for the required check.
 */
function outsideSet(parameter: ParameterSpec, values: readonly unknown[]): string[] {
  const { choices } = parameter;
  if (!choices) return [];
  const wrong = values.find((value) => value !== undefined && !choices.some((choice) => sameValue(choice, value)));
  if (wrong === undefined) return [];
  const named = choices.slice(0, MAX_CHOICES_NAMED).map(choiceText).join(", ");
  const more = choices.length > MAX_CHOICES_NAMED ? ` and ${choices.length - MAX_CHOICES_NAMED} more` : "";
  const given = sanitizeServiceText(typeof wrong === "string" ? JSON.stringify(wrong) : (JSON.stringify(wrong) ?? String(wrong)), 60);
  return [`"${parameter.name}" must be one of: ${named}${more} (not ${given})`];
}

/**
 * A string choice matches the same text exactly (a set is the service's spelling, case
 * included); a number choice matches the same number, as a JSON number or as text (a query or
 * form value is always text).
 */
function sameValue(choice: string | number, value: unknown): boolean {
  if (typeof choice === "string") return value === choice;
  if (typeof value === "number") return value === choice;
  return typeof value === "string" && value.trim() !== "" && Number(value) === choice;
}

/**
 * The values a URL gives a declared route template's `:name` segments, read from the end of its
 * path (the listing is the origin plus the template); none when the path does not fit it.
 */
function routeValues(template: string | undefined, url: URL): Map<string, string> {
  const values = new Map<string, string>();
  if (!template) return values;
  const expected = template.split("/");
  const actual = url.pathname.split("/");
  const offset = actual.length - expected.length;
  if (offset < 0) return values;
  expected.forEach((segment, index) => {
    const name = /^:([A-Za-z_][\w-]*)$/.exec(segment)?.[1];
    const given = safeDecode(actual[offset + index] ?? "");
    // A segment still holding its placeholder is named by `unfilledPathProblem`.
    if (name && given !== "" && given !== segment) values.set(name, given);
  });
  return values;
}

function names(parameters: readonly { name: string }[]): string {
  return parameters.map((parameter) => `"${parameter.name}"`).join(", ");
}

/** A path with its percent escapes decoded; a malformed escape is left as it is, not thrown. */
function safeDecode(path: string): string {
  try {
    return decodeURIComponent(path);
  } catch {
    return path;
  }
}
