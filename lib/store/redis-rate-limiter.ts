import "server-only";
/**
 * Fixed-window rate limiting in Redis, shared by every instance: one counter per key and
 * window, incremented and given its expiry in one Lua script.
 */
import { z } from "zod";
import { fixedWindow } from "./fixed-window";
import type { RedisConnection } from "./redis-connection";
import type { RateLimiter, RateLimitOptions, RateLimitResult } from "./store-types";
import { checkPositiveInteger, checkRateLimitKey } from "./store-input";
import { resolveNow } from "../clock";

const Count = z.number().int().min(1);

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
    const window = fixedWindow(resolveNow(options.now), windowSeconds);
    const counterKey = `${this.keyPrefix}rate:${windowSeconds}:${window.index}:${key}`;
    // A whole window plus a second: the counter always outlives the window it counts.
    const ttlMs = windowSeconds * 1000 + 1000;
    const count = Count.parse(await this.connection.script("x402RateLimitHit", [counterKey], [ttlMs]));
    return { allowed: count <= limit, limit, remaining: Math.max(0, limit - count), resetSeconds: window.resetSeconds };
  }
}
