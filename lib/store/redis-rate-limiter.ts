import "server-only";
/**
 * Fixed-window rate limiting in Redis, shared by every instance: one counter per key, moved to
 * the current window, incremented and given its expiry in one Lua script. Windows are cut on
 * Redis's clock, not the calling instance's, so two instances always count into one window.
 */
import { z } from "zod";
import type { RedisConnection } from "./redis-connection";
import type { RateLimiter, RateLimitOptions, RateLimitResult } from "./store-types";
import { checkPositiveInteger, checkRateLimitKey } from "../limits/store-input";
import { resolveNow } from "../clock";

const HitReply = z.tuple([z.number().int().min(1), z.number().int().min(1)]);

/**
 * @example
 * const limiter = new RedisRateLimiter(connection, "x402:");
 * const { allowed } = await limiter.hit("ip:203.0.113.7", { limit: 20, windowSeconds: 50 });
 */
export class RedisRateLimiter implements RateLimiter {
  constructor(
    private readonly connection: RedisConnection,
    private readonly keyPrefix: string,
  ) {}

  async hit(key: string, options: RateLimitOptions): Promise<RateLimitResult> {
    checkRateLimitKey(key);
    const limit = checkPositiveInteger(options.limit, "limit");
    const windowSeconds = checkPositiveInteger(options.windowSeconds, "windowSeconds");
    const counterKey = `${this.keyPrefix}rate:${windowSeconds}:${key}`;
    // A test's clock when it passes one; otherwise the script reads Redis's.
    const now = options.now === undefined ? "" : String(resolveNow(options.now));
    const [count, remainingMs] = HitReply.parse(await this.connection.script("x402RateLimitHit", [counterKey], [windowSeconds * 1000, now]));
    return { allowed: count <= limit, limit, remaining: Math.max(0, limit - count), resetSeconds: Math.ceil(remainingMs / 1000) };
  }
}
