/**
 * The one error type of the service. Each failure has a stable code that fixes its HTTP
 * status and the message a caller may see; details and causes go to logs only.
 */

import { BaseError } from "./base-error";

export type FieldError = { path: string; message: string };

type ErrorDefinition = { status: number; title: string; message: string };

/** Code → status, problem title and the safe default message. */
export const ERROR_DEFINITIONS = {
  "bad_request:json": { status: 400, title: "Malformed JSON", message: "The request body is not valid JSON." },
  "bad_request:body": { status: 400, title: "Invalid request", message: "The request body is not valid." },
  "bad_request:query": { status: 400, title: "Invalid query", message: "The query parameters are not valid." },
  "bad_request:too_large": { status: 400, title: "Request too large", message: "The request is larger than allowed." },
  "bad_request:content_type": {
    status: 400,
    title: "Unsupported content type",
    message: "Send the request body as application/json.",
  },
  request_timeout: {
    status: 408,
    title: "Request timeout",
    message: "The request body did not arrive in time. Nothing was done; send the request again.",
  },
  "payment_required:invalid_signature": {
    status: 402,
    title: "Invalid payment signature",
    message: "The payment signature is not valid for this quote. Nothing was charged.",
  },
  "payment_required:expired": {
    status: 402,
    title: "Quote expired",
    message: "The quote has expired. Ask again for a fresh quote. Nothing was charged.",
  },
  "payment_required:mismatch": {
    status: 402,
    title: "Payment does not match the quote",
    message: "The signed payment does not match the quoted payment. Nothing was charged.",
  },
  unauthorized: {
    status: 401,
    title: "Unauthorized",
    message: "A valid credential is required for this request.",
  },
  "unauthorized:credentials_required": {
    status: 401,
    title: "Credentials required",
    message: "The agent wallet pays only for callers it knows: send an API key, sign in with your wallet, or pay from your own wallet.",
  },
  "unauthorized:bad_key": {
    status: 401,
    title: "Invalid API key",
    message: "The API key is not valid: it is unknown, revoked or expired.",
  },
  "forbidden:agent_wallet": {
    status: 403,
    title: "Agent wallet not allowed",
    message: "This API key may not make the agent wallet pay. Pay from your own wallet (walletAddress), or ask the operator for a key that may.",
  },
  "forbidden:not_your_wallet": {
    status: 403,
    title: "Not your wallet",
    message: "You are signed in with another wallet. You can see the payments of the wallet you signed in with only.",
  },
  "forbidden:unsafe_content": {
    status: 403,
    title: "Unsafe content",
    message: "The message was refused because it appears to contain a secret such as a private key or seed phrase.",
  },
  "forbidden:other_origin": {
    status: 403,
    title: "Other origin",
    message: "This endpoint does not serve pages of other sites. Call it from an MCP client or from this site.",
  },
  "forbidden:grant_other_wallet": {
    status: 403,
    title: "Grant of another wallet",
    message: "This grant was signed by another wallet than the one the request names. A grant pays only for its own wallet.",
  },
  "forbidden:grant_ended": {
    status: 403,
    title: "Grant ended",
    message: "This grant has ended: it was revoked, replaced by a newer grant, or it expired. Nothing was paid; sign a new grant to go on.",
  },
  "conflict:signature_reused": {
    status: 409,
    title: "Payment signature already used",
    message: "This payment signature was already used with a different request. Nothing was paid; repeat the original request to see its outcome.",
  },
  "conflict:in_progress": {
    status: 409,
    title: "Request in progress",
    message:
      "A request with this Idempotency-Key is still running, or the server running it stopped. Wait the seconds in Retry-After, then send it again: you get its outcome or a fresh run, never a second payment.",
  },
  "conflict:grant_used": {
    status: 409,
    title: "Permit already used",
    message: "This permit was already submitted: its Permit2 nonce is used. Prepare a new grant to change it.",
  },
  not_found: { status: 404, title: "Not found", message: "Nothing by that name exists for you." },
  rate_limited: {
    status: 429,
    title: "Too many requests",
    message: "Too many requests. Wait for the cooldown, then try again.",
  },
  internal: {
    status: 500,
    title: "Internal error",
    message: "Something went wrong on our side. Nothing was charged unless a payment is reported.",
  },
  "unavailable:model": {
    status: 503,
    title: "Model unavailable",
    message: "The language model is unavailable right now. Try again shortly.",
  },
  "unavailable:facilitator": {
    status: 503,
    title: "Payment facilitator unavailable",
    message: "The payment facilitator is unavailable right now. Try again shortly.",
  },
  "unavailable:store": {
    status: 503,
    title: "Spending ledger unavailable",
    message: "Payments are paused because the spending ledger cannot be reached. Try again shortly.",
  },
  "unavailable:chain": {
    status: 503,
    title: "Chain unavailable",
    message: "The chain could not be reached, or it refused the transaction. Nothing was granted; try again shortly.",
  },
  "unavailable:not_configured": {
    status: 503,
    title: "Service not configured",
    message: "The service is not configured to handle this request.",
  },
} as const satisfies Record<string, ErrorDefinition>;

export type ErrorCode = keyof typeof ERROR_DEFINITIONS;

export type AppErrorOptions = {
  /** A safe, specific message for the caller; defaults to the code's message. */
  message?: string;
  /** Internal details for logs; never sent to a caller. */
  details?: string;
  cause?: unknown;
  errors?: FieldError[];
  /** Seconds, for 429 and 503. */
  retryAfterSeconds?: number;
  /** Extra response headers (for example RateLimit headers). */
  headers?: Record<string, string>;
};

const MARKER = Symbol.for("x402-agent.app-error");

/**
 * @example
 * throw new AppError("bad_request:body", { errors: [{ path: "messages", message: "Required" }] });
 */
export class AppError extends BaseError<ErrorCode> {
  readonly status: number;
  readonly safeMessage: string;
  readonly errors: FieldError[] | undefined;
  readonly retryAfterSeconds: number | undefined;
  readonly headers: Record<string, string>;
  private readonly [MARKER] = true;

  constructor(code: ErrorCode, options: AppErrorOptions = {}) {
    const definition = ERROR_DEFINITIONS[code];
    super(code, options.message ?? definition.message, { cause: options.cause, details: options.details });
    this.status = definition.status;
    this.safeMessage = options.message ?? definition.message;
    this.errors = options.errors;
    this.retryAfterSeconds = options.retryAfterSeconds;
    this.headers = options.headers ?? {};
  }

  /** Recognises the error across bundles, where `instanceof` can fail. */
  static isInstance(value: unknown): value is AppError {
    return typeof value === "object" && value !== null && (value as Record<symbol, unknown>)[MARKER] === true;
  }
}

/** RFC 9457 problem details, as sent to callers. */
export type ProblemBody = {
  type: string;
  title: string;
  status: number;
  detail: string;
  code: ErrorCode;
  instance?: string;
  errors?: FieldError[];
};

const PROBLEM_TYPE_BASE = "https://x402-agent.dev/problems/";

export function toProblem(error: AppError, instance?: string): ProblemBody {
  const definition = ERROR_DEFINITIONS[error.code];
  return {
    type: `${PROBLEM_TYPE_BASE}${error.code.replace(":", "/")}`,
    title: definition.title,
    status: error.status,
    detail: error.safeMessage,
    code: error.code,
    ...(instance ? { instance } : {}),
    ...(error.errors?.length ? { errors: error.errors } : {}),
  };
}

/**
 * Wraps anything thrown into an AppError: a setting met by a running server is `503` (it is
 * the operator's to fix, and boot normally catches it first); unknown failures become an
 * opaque `internal`.
 */
export function asAppError(value: unknown): AppError {
  if (AppError.isInstance(value)) return value;
  if (BaseError.isInstance(value) && value.code === "config") {
    return new AppError("unavailable:not_configured", { details: value.message, cause: value, retryAfterSeconds: 60 });
  }
  return new AppError("internal", {
    details: value instanceof Error ? `${value.name}: ${value.message}` : String(value),
    cause: value,
  });
}

/** The problem+json response for an error; logs details under an opaque id for 5xx. */
export function problemResponse(value: unknown, log: (entry: Record<string, unknown>) => void = logError): Response {
  const error = asAppError(value);
  const instance = `urn:uuid:${crypto.randomUUID()}`;
  if (error.status >= 500) {
    log({ level: "error", instance, code: error.code, details: error.details, cause: describeCause(error.cause) });
  }
  const headers = new Headers({ "Content-Type": "application/problem+json", "Cache-Control": "no-store" });
  if (error.retryAfterSeconds !== undefined) headers.set("Retry-After", String(Math.ceil(error.retryAfterSeconds)));
  for (const [name, headerValue] of Object.entries(error.headers)) headers.set(name, headerValue);
  return new Response(JSON.stringify(toProblem(error, instance)), { status: error.status, headers });
}

function describeCause(cause: unknown): string | undefined {
  if (cause === undefined) return undefined;
  return cause instanceof Error ? `${cause.name}: ${cause.message}` : String(cause);
}

function logError(entry: Record<string, unknown>): void {
  console.error(JSON.stringify(entry));
}
