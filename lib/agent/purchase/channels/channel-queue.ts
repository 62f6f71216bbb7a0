/**
 * Calls on one channel take turns within an instance: each waits for the one before it on a
 * promise chain, so an instance never asks the database for a lease it holds itself. Across
 * instances the channel ledger's lease serializes them (a `busy` answer, retried). An instance
 * is its channel ledger (one per store, and so one per app), so two instances living in one
 * process, as in a test, still meet only at the database.
 *
 * A call may keep its turn after it has answered (`holdTurn`): its ledger statement that ends
 * the lease (settle) runs after the answer is handed back, and the next call on the channel
 * starts once that statement has finished, never on a lease the instance still holds.
 */
const queues = new WeakMap<object, Map<string, Promise<void>>>();

/** Keeps the caller's turn until `until` settles (however it ends). */
export type HoldTurn = (until: Promise<unknown>) => void;

/** Runs `work` once every earlier call on `key` through the same `ledger` has finished (however it ended) and let go of its turn. */
export async function inTurn<T>(ledger: object, key: string, work: (holdTurn: HoldTurn) => Promise<T>): Promise<T> {
  let tails = queues.get(ledger);
  if (!tails) {
    tails = new Map();
    queues.set(ledger, tails);
  }
  const before = tails.get(key) ?? Promise.resolve();
  let done!: () => void;
  const mine = new Promise<void>((resolve) => {
    done = resolve;
  });
  const tail = before.then(() => mine);
  tails.set(key, tail);
  await before;
  const held: Promise<unknown>[] = [];
  try {
    return await work((until) => held.push(until.catch(() => undefined)));
  } finally {
    void Promise.all(held).then(() => {
      done();
      // The last in line leaves no entry behind.
      if (tails.get(key) === tail) tails.delete(key);
    });
  }
}
