/**
 * Calls `onGone` when the caller of an incoming request goes away, until the returned `release`
 * is called (when the work for that request has ended).
 *
 * Listening on `request.signal` alone is not enough: undici's Request follows the signal it was
 * built with through a WeakRef to a controller only the Request holds, so once nothing holds the
 * Request (a route handler returns a streaming Response and lets it go), a garbage collection
 * cuts that link and the caller's leaving is never heard. The listener and `release` hold the
 * Request until then; `release` drops both.
 */
export function watchCaller(request: Request, onGone: () => void): () => void {
  const gone = () => onGone();
  request.signal?.addEventListener("abort", gone, { once: true });
  return () => request.signal?.removeEventListener("abort", gone);
}
