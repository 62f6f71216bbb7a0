import "server-only";
/**
 * Per-client and per-wallet rate limits on the shared store, with `Retry-After` (never more
 * than 50 s, the client cooldown of the spec) and the IETF `RateLimit` headers.
 */
import { AppError } from "../errors";
import type { Store } from "../store/store-types";

export type RateLimitSettings = { store: Store; env: { RATE_LIMIT_REQUESTS: number; RATE_LIMIT_WINDOW_SECONDS: number } };

export const MAX_RETRY_AFTER_SECONDS = 50;

/** Counts the request against each key; throws 429 when any is over; returns headers to send. */
export async function enforceRateLimit(settings: RateLimitSettings, keys: string[]): Promise<Record<string, string>> {
  const limit = settings.env.RATE_LIMIT_REQUESTS;
  const windowSeconds = Math.min(settings.env.RATE_LIMIT_WINDOW_SECONDS, MAX_RETRY_AFTER_SECONDS);
  let tightest: { remaining: number; resetSeconds: number } | undefined;
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
  return tightest
    ? { RateLimit: `limit=${limit}, remaining=${tightest.remaining}, reset=${tightest.resetSeconds}`, "RateLimit-Policy": `${limit};w=${windowSeconds}` }
    : {};
}
