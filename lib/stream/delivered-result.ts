/**
 * A paid service's answer as the page shows it on a result card: the data the agent read (the
 * same parsed JSON or text the model gets), what was asked, and the answer's content type. It
 * rides on the `delivered` `p:` event, so it is bounded twice over: the agent already cuts a
 * service's answer to a few thousand characters before reading it, and here the whole value must
 * stay within MAX_RESULT_JSON_CHARS of JSON and MAX_RESULT_DEPTH levels of nesting. A result over
 * either bound is dropped, never cut: half a JSON value is not data, and the model's text still
 * carries the answer. The bound keeps one stream line, the browser's memory and its render small
 * whatever a service sends; the depth bound keeps every walk over the value (this check, the
 * page's rendering) shallow, so a hostile answer cannot exhaust the stack.
 */
import { z } from "zod";

/** JSON characters of `data`, at most: about four times what the agent reads of an answer. */
export const MAX_RESULT_JSON_CHARS = 16_384;
/** Levels of nesting in `data`: the value itself is level 0. */
export const MAX_RESULT_DEPTH = 8;
/** The request body shown as "what was asked"; longer bodies are left out. */
export const MAX_ASKED_BODY_CHARS = 4_096;

/**
 * True for a JSON value (null, boolean, finite number, string, array, plain object) within the
 * depth and size bounds. Iterative, and it stops as soon as a bound is passed, so a value of any
 * size or depth costs at most about MAX_RESULT_JSON_CHARS steps.
 */
export function isBoundedJson(value: unknown, maxChars = MAX_RESULT_JSON_CHARS, maxDepth = MAX_RESULT_DEPTH): boolean {
  const stack: { value: unknown; depth: number }[] = [{ value, depth: 0 }];
  // A lower bound on the JSON length, to stop early; the exact length is checked at the end.
  let chars = 0;
  while (stack.length > 0) {
    const item = stack.pop() as { value: unknown; depth: number };
    const current = item.value;
    if (current === null || typeof current === "boolean") chars += 4;
    else if (typeof current === "number") {
      if (!Number.isFinite(current)) return false;
      chars += 1;
    } else if (typeof current === "string") chars += current.length + 2;
    else if (typeof current === "object") {
      if (item.depth >= maxDepth) return false;
      if (Array.isArray(current)) {
        chars += 2 + current.length;
        for (const element of current) stack.push({ value: element, depth: item.depth + 1 });
      } else {
        const prototype = Object.getPrototypeOf(current) as unknown;
        if (prototype !== Object.prototype && prototype !== null) return false;
        for (const [key, field] of Object.entries(current)) {
          chars += key.length + 4;
          stack.push({ value: field, depth: item.depth + 1 });
        }
        chars += 2;
      }
    } else return false;
    if (chars > maxChars) return false;
  }
  return JSON.stringify(value).length <= maxChars;
}

export const DeliveredResult = z.object({
  /** The answer's media type, e.g. `application/json`. */
  contentType: z.string().max(100),
  /** Parsed JSON, or the answer's text (a description of it for bytes that are not text). */
  data: z.unknown().refine((value) => isBoundedJson(value), "result data is not bounded JSON"),
  /** The agent read only the beginning of a longer answer. */
  truncated: z.boolean(),
  /** What was asked beyond the resource URL: the method and the body sent, if any. */
  request: z
    .object({
      method: z.string().max(10),
      body: z.string().max(MAX_ASKED_BODY_CHARS).optional(),
    })
    .optional(),
});
export type DeliveredResult = z.infer<typeof DeliveredResult>;

/**
 * The `result` of a `delivered` event, or nothing when the answer is over the bounds (the page
 * then shows no card; the model's text still has the answer). A body too long to show is left
 * out on its own.
 */
export function deliveredResultOf(
  answer: { contentType: string; content: unknown; truncated: boolean },
  request: { method: string; body?: string },
): { result: DeliveredResult } | Record<string, never> {
  if (!isBoundedJson(answer.content)) return {};
  const body = request.body !== undefined && request.body.length <= MAX_ASKED_BODY_CHARS ? { body: request.body } : {};
  const candidate = {
    contentType: answer.contentType.slice(0, 100),
    data: answer.content,
    truncated: answer.truncated,
    request: { method: request.method.slice(0, 10), ...body },
  };
  const parsed = DeliveredResult.safeParse(candidate);
  return parsed.success ? { result: parsed.data } : {};
}
