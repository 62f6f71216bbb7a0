/**
 * Calls `onOrphaned` once if this process's parent goes away (its parent id changes when it is
 * re-parented to init or a subreaper). `npm run devnet` runs us under npm and tsx; if one of
 * them is killed with SIGKILL we would otherwise keep the whole local world running unseen.
 * Returns a function that stops watching.
 */
export function watchParent(onOrphaned: () => void, intervalMs = 500): () => void {
  const parent = process.ppid;
  const timer = setInterval(() => {
    if (process.ppid !== parent) {
      clearInterval(timer);
      onOrphaned();
    }
  }, intervalMs);
  timer.unref();
  return () => clearInterval(timer);
}
