/**
 * Reads an RFC 9457 problem response (`application/problem+json`) into what the page shows,
 * with wording for each status when the body says nothing useful.
 */
import { z } from "zod";
import type { RequestProblem } from "./chat-types";

/** The server never asks for more than this; a larger value is clamped, not trusted. */
export const MAX_RETRY_AFTER_SECONDS = 50;

const ProblemBody = z.object({
  title: z.string().optional(),
  code: z.string().max(100).optional(),
  detail: z.string().optional(),
  errors: z.array(z.object({ path: z.string(), message: z.string() })).optional(),
});

const FALLBACK_DETAIL: Record<number, string> = {
  400: "The request was not accepted.",
  402: "The payment signature was not accepted. Nothing was charged.",
  403: "The message was refused.",
  429: "Too many requests. You can send again when the cooldown ends.",
  500: "Something went wrong on the server. Nothing was charged unless a payment is reported.",
  503: "The service is unavailable right now. Try again shortly.",
};

/** Seconds from a `Retry-After` header (delta-seconds or an HTTP date), clamped to 0..50. */
export function parseRetryAfter(value: string | null, now = Date.now()): number | undefined {
  if (!value) return undefined;
  const trimmed = value.trim();
  let seconds: number;
  if (/^\d+$/.test(trimmed)) {
    seconds = Number(trimmed);
  } else {
    const date = Date.parse(trimmed);
    if (Number.isNaN(date)) return undefined;
    seconds = Math.ceil((date - now) / 1000);
  }
  return Math.min(MAX_RETRY_AFTER_SECONDS, Math.max(0, seconds));
}

export async function readProblem(response: Response): Promise<RequestProblem> {
  let body: z.infer<typeof ProblemBody> = {};
  const type = response.headers.get("Content-Type") ?? "";
  if (type.includes("json")) {
    try {
      const parsed = ProblemBody.safeParse(await response.json());
      if (parsed.success) body = parsed.data;
    } catch {
      // Not JSON after all: fall back to the status wording.
    }
  }
  const fallback = FALLBACK_DETAIL[response.status] ?? `The request failed (HTTP ${response.status}).`;
  return {
    status: response.status,
    title: body.title ?? (response.statusText || "Request failed"),
    ...(body.code ? { code: body.code } : {}),
    detail: body.detail ?? fallback,
    retryAfterSeconds: parseRetryAfter(response.headers.get("Retry-After")),
    fieldErrors: body.errors ?? [],
  };
}
