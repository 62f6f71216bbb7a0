/**
 * A full garbage collection on demand, for tests of what a loaded process may do at any moment:
 * objects only weakly held (undici's Request keeps its link to the caller's AbortSignal that way)
 * are gone afterwards. A few rounds with a turn of the event loop between them, because WeakRefs
 * are only cleared between jobs.
 */
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";

setFlagsFromString("--expose-gc");
/** One full collection, now. */
export const fullCollection = runInNewContext("gc") as () => void;

export async function collectGarbage(rounds = 3): Promise<void> {
  for (let round = 0; round < rounds; round += 1) {
    fullCollection();
    await new Promise((resolve) => setImmediate(resolve));
  }
}
