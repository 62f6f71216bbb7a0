/**
 * A timeout that can be called off once the work it bounds is done.
 *
 * `AbortSignal.timeout(ms)` cannot be: its timer stays in Node's timer list until it fires, and
 * the timer holds the async context it was created in, which on a server is the whole request
 * (Next's request store, the response, the stream). Measured under `next start` after eight
 * bursts of 50 paid turns: about 950 such timers kept finished turns alive for the 10 to 45 s
 * of their timeouts, and the heap grew with the load.
 */
export type TimeoutSignal = {
  /** Aborts with a `TimeoutError` DOMException, as `AbortSignal.timeout` does. */
  signal: AbortSignal;
  /** Stops the timer; the signal then never aborts. Safe to call more than once. */
  clear(): void;
};

function timeoutError(): DOMException {
  return new DOMException("The operation was aborted due to timeout", "TimeoutError");
}

export function timeoutSignal(ms: number): TimeoutSignal {
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(timeoutError()), ms);
  // A bound on one request must not keep the process alive.
  timer.unref?.();
  return { signal: controller.signal, clear: () => clearTimeout(timer) };
}

/** A time bound joined to a caller's signal (see `boundedSignal`). */
export type BoundedSignal = TimeoutSignal & {
  /** Whether the time bound (not the caller) ended the work. */
  timedOut(): boolean;
};

/**
 * A signal that aborts with the caller's reason when `caller` aborts, or with a `TimeoutError`
 * after `ms`, whichever comes first: what `AbortSignal.any([caller, timeoutSignal(ms).signal])`
 * gives, at a fraction of its cost per call (on Node 22 `AbortSignal.any` took 15 to 45 µs, this
 * about 4; the guarded fetch makes one per request, see docs/decisions.md, "Outbound requests").
 * `clear` stops the timer and takes the listener off the caller's signal, so a long-lived caller
 * (a chat turn making many requests) does not collect one per finished request.
 */
export function boundedSignal(caller: AbortSignal | undefined, ms: number): BoundedSignal {
  const controller = new AbortController();
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    controller.abort(timeoutError());
  }, ms);
  timer.unref?.();
  const onCallerAbort = () => controller.abort(caller?.reason);
  if (caller?.aborted) onCallerAbort();
  else caller?.addEventListener("abort", onCallerAbort, { once: true });
  return {
    signal: controller.signal,
    timedOut: () => timedOut,
    clear() {
      clearTimeout(timer);
      caller?.removeEventListener("abort", onCallerAbort);
    },
  };
}

/**
 * `work`, or a rejection with `message` after `ms`, whichever comes first; the timer is stopped
 * as soon as either happens.
 */
export async function settleWithin<T>(work: Promise<T>, ms: number, message: string): Promise<T> {
  const timeout = timeoutSignal(ms);
  const expired = new Promise<never>((_, reject) => {
    timeout.signal.addEventListener("abort", () => reject(new Error(message)), { once: true });
  });
  try {
    return await Promise.race([work, expired]);
  } finally {
    timeout.clear();
  }
}
