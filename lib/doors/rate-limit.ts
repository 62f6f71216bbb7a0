import "server-only";
/**
 * Per-client and per-wallet rate limits on the shared store, with `Retry-After` (never more
 * than 50 s, the client cooldown of the spec) and the IETF `RateLimit` headers.
 */
import { AppError } from "../errors";
import type { Store } from "../store/store-types";

export type RateLimitSettings = { store: Pick<Store, "rateLimiter">; env: { RATE_LIMIT_REQUESTS: number; RATE_LIMIT_WINDOW_SECONDS: number } };

export const MAX_RETRY_AFTER_SECONDS = 50;

/** What the tightest bucket counted so far has left; carried between calls for the headers. */
export type RateLimitCount = { remaining: number; resetSeconds: number };

export type RateLimitOutcome = { count: RateLimitCount | undefined; headers: Record<string, string> };

/**
 * Counts the request against each key; throws 429 when any is over; returns the headers to
 * send, for the tightest of these keys and of `earlier` (the outcome of an earlier call for
 * the same request, when keys are counted at different moments).
 */
export async function enforceRateLimit(
  settings: RateLimitSettings,
  keys: string[],
  earlier?: RateLimitOutcome,
  limit = settings.env.RATE_LIMIT_REQUESTS,
): Promise<RateLimitOutcome> {
  const windowSeconds = Math.min(settings.env.RATE_LIMIT_WINDOW_SECONDS, MAX_RETRY_AFTER_SECONDS);
  let tightest = earlier?.count;
  for (const key of keys) {
    const result = await settings.store.rateLimiter.hit(`chat:${key}`, { limit, windowSeconds });
    const resetSeconds = Math.max(1, Math.min(Math.ceil(result.resetSeconds), MAX_RETRY_AFTER_SECONDS));
    const headers = {
      RateLimit: `limit=${limit}, remaining=${result.remaining}, reset=${resetSeconds}`,
      "RateLimit-Policy": `${limit};w=${windowSeconds}`,
    };
    if (!result.allowed) throw new AppError("rate_limited", { retryAfterSeconds: resetSeconds, headers });
    if (!tightest || result.remaining < tightest.remaining) tightest = { remaining: result.remaining, resetSeconds };
  }
  return {
    count: tightest,
    headers: tightest
      ? { RateLimit: `limit=${limit}, remaining=${tightest.remaining}, reset=${tightest.resetSeconds}`, "RateLimit-Policy": `${limit};w=${windowSeconds}` }
      : {},
  };
}
