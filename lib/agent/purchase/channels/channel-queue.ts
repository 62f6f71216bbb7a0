/**
 * Calls on one channel take turns in this process: each waits for the one before it on a
 * promise chain, so an instance never asks the database for a lease it holds itself. Across
 * instances the channel ledger's lease serializes them (a `busy` answer, retried).
 */
const tails = new Map<string, Promise<void>>();

/** Runs `work` once every earlier call on `key` in this process has finished (however it ended). */
export async function inTurn<T>(key: string, work: () => Promise<T>): Promise<T> {
  const before = tails.get(key) ?? Promise.resolve();
  let done!: () => void;
  const mine = new Promise<void>((resolve) => {
    done = resolve;
  });
  const tail = before.then(() => mine);
  tails.set(key, tail);
  await before;
  try {
    return await work();
  } finally {
    done();
    // The last in line leaves no entry behind.
    if (tails.get(key) === tail) tails.delete(key);
  }
}
