/**
 * The clock a store or policy call runs on, epoch milliseconds: the caller's when it passes one
 * (tests of time windows do), otherwise now. Shared by the stores and the API key rules.
 * @example resolveNow(undefined);
 */
export function resolveNow(now: number | undefined): number {
  if (now === undefined) return Date.now();
  if (!Number.isSafeInteger(now) || now < 0) throw new RangeError("now must be epoch milliseconds (an integer >= 0)");
  return now;
}
