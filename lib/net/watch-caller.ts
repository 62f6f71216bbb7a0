/**
 * Calls `onGone` when the caller of an incoming request goes away, until the returned function
 * is called (when the work for that request has ended).
 *
 * Listening on `request.signal` alone is not enough: undici's Request follows the signal it was
 * built with through a WeakRef to a controller only the Request holds, so once nothing holds the
 * Request (a route handler returns a streaming Response and lets it go), a garbage collection
 * cuts that link and the caller's leaving is never heard. The returned function holds the
 * Request: keep it reachable until the work ends (the chat route hangs it on the run's `done`),
 * then call it to drop the listener.
 */
export function watchCaller(request: Request, onGone: () => void): () => void {
  const gone = () => onGone();
  request.signal?.addEventListener("abort", gone, { once: true });
  return () => request.signal?.removeEventListener("abort", gone);
}
