/**
 * Preloaded into a server (`NODE_OPTIONS=--require …/clock-skew.cjs`) to make its clock run
 * TEST_CLOCK_SKEW_MS milliseconds ahead (negative: behind) of the machine's, as the clocks of
 * separate hosts do. Only `Date.now()` is moved: it is the clock the app reads its own times
 * from (`deps.now ?? Date.now`), and the one a ledger once compared with rows other instances
 * wrote; `new Date()`, `performance.now()` and timers keep the real one.
 * CommonJS, so `--require` loads it before anything else in the process.
 */
"use strict";
const skew = Number(process.env.TEST_CLOCK_SKEW_MS ?? "0");
if (Number.isFinite(skew) && skew !== 0) {
  const realNow = Date.now.bind(Date);
  Date.now = () => realNow() + skew;
}
