/**
 * Fixed-window rate limiting in process memory (single instance).
 */
import { fixedWindow } from "./fixed-window";
import type { RateLimiter, RateLimitOptions, RateLimitResult } from "./store-types";
import { checkPositiveInteger, checkRateLimitKey } from "../limits/store-input";
import { resolveNow } from "../clock";

/** Finished windows are swept every this many hits, so memory stays bounded. */
const SWEEP_EVERY = 1000;

/**
 * @example
 * const limiter = new MemoryRateLimiter();
 * const { allowed, resetSeconds } = await limiter.hit("ip:203.0.113.7", { limit: 20, windowSeconds: 50 });
 */
export class MemoryRateLimiter implements RateLimiter {
  private readonly counters = new Map<string, { count: number; endsAt: number }>();
  private hitsSinceSweep = 0;

  async hit(key: string, options: RateLimitOptions): Promise<RateLimitResult> {
    checkRateLimitKey(key);
    const limit = checkPositiveInteger(options.limit, "limit");
    const windowSeconds = checkPositiveInteger(options.windowSeconds, "windowSeconds");
    const now = resolveNow(options.now);
    const window = fixedWindow(now, windowSeconds);
    // The window length is part of the key, so two policies on one key never share a counter.
    const counterKey = `${windowSeconds}:${window.index}:${key}`;

    const counter = this.counters.get(counterKey) ?? { count: 0, endsAt: now + window.remainingMs };
    counter.count += 1;
    this.counters.set(counterKey, counter);
    this.sweep(now);

    return {
      allowed: counter.count <= limit,
      limit,
      remaining: Math.max(0, limit - counter.count),
      resetSeconds: window.resetSeconds,
    };
  }

  private sweep(now: number): void {
    this.hitsSinceSweep += 1;
    if (this.hitsSinceSweep < SWEEP_EVERY) return;
    this.hitsSinceSweep = 0;
    for (const [key, counter] of this.counters) if (counter.endsAt <= now) this.counters.delete(key);
  }
}
