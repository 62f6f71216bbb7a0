/**
 * Fixed-window arithmetic shared by both rate limiters, so memory and Redis agree on where a
 * window starts and how long until it resets.
 */

export type FixedWindow = {
  /** Which window `now` falls in; part of the counter's key. */
  index: number;
  /** Milliseconds until the window ends (1..windowSeconds*1000). */
  remainingMs: number;
  /** Whole seconds until the window ends, rounded up: 1..windowSeconds. */
  resetSeconds: number;
};

/**
 * @example
 * fixedWindow(61_500, 60); // { index: 1, remainingMs: 58_500, resetSeconds: 59 }
 */
export function fixedWindow(now: number, windowSeconds: number): FixedWindow {
  const windowMs = windowSeconds * 1000;
  const index = Math.floor(now / windowMs);
  const remainingMs = (index + 1) * windowMs - now;
  return { index, remainingMs, resetSeconds: Math.ceil(remainingMs / 1000) };
}
