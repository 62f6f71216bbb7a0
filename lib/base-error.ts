/**
 * The base of every error this service raises: a stable machine-readable code, a short message
 * that is safe to show, details for logs only, and the cause chain with `walk()` to search it.
 * Recognised by a registered marker rather than `instanceof`, so it survives duplicated module
 * copies (bundles, test isolation).
 */
const MARKER = Symbol.for("x402-agent.base-error");

export type BaseErrorOptions = {
  cause?: unknown;
  /** For logs only; never sent to a caller. */
  details?: string;
};

/**
 * @example
 * class DeadlineReached extends BaseError<"deadline"> {
 *   constructor() { super("deadline", "The request reached its time limit."); }
 * }
 */
export class BaseError<Code extends string = string> extends Error {
  readonly code: Code;
  /** A short message a person may see. */
  readonly shortMessage: string;
  readonly details: string | undefined;
  readonly [MARKER] = true;

  constructor(code: Code, shortMessage: string, options: BaseErrorOptions = {}) {
    super(shortMessage, { cause: options.cause });
    this.name = new.target.name;
    this.code = code;
    this.shortMessage = shortMessage;
    this.details = options.details;
  }

  static isInstance(value: unknown): value is BaseError {
    return typeof value === "object" && value !== null && (value as Record<symbol, unknown>)[MARKER] === true;
  }

  /** The first error along this one's cause chain (itself included) that `matches`. */
  walk<T>(matches: (error: unknown) => error is T): T | undefined {
    return walkCauses(this, matches);
  }
}

/**
 * The first error along any error's cause chain (itself included) that `matches`: undici and
 * other libraries wrap ours (`TypeError: fetch failed` → cause → ours).
 */
export function walkCauses<T>(error: unknown, matches: (error: unknown) => error is T): T | undefined {
  let current: unknown = error;
  for (let depth = 0; depth < 16 && current !== undefined && current !== null; depth += 1) {
    if (matches(current)) return current;
    current = (current as { cause?: unknown }).cause;
  }
  return undefined;
}
