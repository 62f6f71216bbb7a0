/**
 * The one error of the guarded fetch. Its `code` is stable for callers to branch on; its
 * message is safe to show (at most the host name, never a path, query or credentials).
 * Internal detail such as the resolved address stays in `cause`, for logs only.
 */

export const GUARDED_FETCH_ERROR_CODES = [
  "invalid_url",
  "blocked_scheme",
  "credentials_in_url",
  "blocked_address",
  "infrastructure",
  "too_many_redirects",
  "timeout",
  "response_too_large",
  "connect_failed",
  "connection_lost",
] as const;

export type GuardedFetchErrorCode = (typeof GUARDED_FETCH_ERROR_CODES)[number];

const DEFAULT_MESSAGES: Record<GuardedFetchErrorCode, string> = {
  invalid_url: "The URL is not valid.",
  blocked_scheme: "Only http and https URLs may be fetched.",
  credentials_in_url: "URLs with a user name or password are refused.",
  blocked_address: "The address is not public and not on the allowlist.",
  infrastructure: "This is the payment network's own server (its chain RPC or facilitator), not a service.",
  too_many_redirects: "The service redirected too many times.",
  timeout: "The service did not answer in time.",
  response_too_large: "The service's response is larger than allowed.",
  connect_failed: "The service could not be reached.",
  connection_lost: "The connection to the service failed before its answer arrived.",
};

/**
 * Codes raised before any socket to the target exists (URL checks, address checks and
 * connection attempts in the connector): the request cannot have reached a server.
 */
const BEFORE_ANY_SOCKET: ReadonlySet<GuardedFetchErrorCode> = new Set([
  "invalid_url",
  "blocked_scheme",
  "credentials_in_url",
  "blocked_address",
  "infrastructure",
  "connect_failed",
]);

import { BaseError, walkCauses } from "../base-error";

// A registered symbol survives duplicated module copies (bundles, test isolation), where
// `instanceof` would not.
const MARKER = Symbol.for("x402-payment-agent/GuardedFetchError");

export type GuardedFetchErrorOptions = {
  /** The host concerned, shown in the message; never a full URL. */
  host?: string;
  cause?: unknown;
  /**
   * Whether the request may have reached a server. Defaults by code: false only for errors
   * raised before any socket existed. A payment header sent in a request that may have
   * arrived may be used by its receiver, so callers that pay rely on this.
   */
  requestMayHaveArrived?: boolean;
};

/**
 * A refused or failed outbound request.
 *
 * @example
 * try {
 *   await guardedFetch("http://169.254.169.254/latest/meta-data/");
 * } catch (error) {
 *   if (GuardedFetchError.isInstance(error) && error.code === "blocked_address") {
 *     // tell the model the URL is not reachable
 *   }
 * }
 */
export class GuardedFetchError extends BaseError<GuardedFetchErrorCode> {
  readonly host: string | undefined;
  /** See `GuardedFetchErrorOptions.requestMayHaveArrived`. */
  readonly requestMayHaveArrived: boolean;
  readonly [MARKER] = true;

  constructor(code: GuardedFetchErrorCode, options: GuardedFetchErrorOptions = {}) {
    const base = DEFAULT_MESSAGES[code];
    super(code, options.host ? `${base} (host: ${options.host})` : base, { cause: options.cause });
    this.host = options.host;
    this.requestMayHaveArrived = options.requestMayHaveArrived ?? !BEFORE_ANY_SOCKET.has(code);
  }

  /** The same error, marked as raised after an earlier hop of the same request was answered. */
  afterEarlierHop(): GuardedFetchError {
    if (this.requestMayHaveArrived) return this;
    return new GuardedFetchError(this.code, { host: this.host, cause: this.cause, requestMayHaveArrived: true });
  }

  /**
   * Recognises a guarded fetch error by its marker, across module copies.
   *
   * @example
   * GuardedFetchError.isInstance(new GuardedFetchError("timeout")); // true
   * GuardedFetchError.isInstance(new Error("timeout"));             // false
   */
  static isInstance(value: unknown): value is GuardedFetchError {
    return typeof value === "object" && value !== null && (value as Record<symbol, unknown>)[MARKER] === true;
  }

  /**
   * The first guarded fetch error in an error's `cause` chain (undici wraps connector errors
   * in `TypeError: fetch failed`).
   *
   * @example
   * GuardedFetchError.find(new TypeError("fetch failed", { cause: new GuardedFetchError("blocked_address") }));
   */
  static find(error: unknown): GuardedFetchError | undefined {
    return walkCauses(error, GuardedFetchError.isInstance);
  }
}
