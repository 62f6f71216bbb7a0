/**
 * Runs once around the integration suite. Integration tests start their own local world per
 * file (on free ports); this hook tags every process those worlds start and, at the end, fails
 * the suite if any of them (anvil or its reaper) is still running.
 */
import { randomUUID } from "node:crypto";
import { DEVNET_SUITE_TAG, waitForTaggedProcessesGone } from "../../devnet/chain/process-tags";

/** Time for the last devnet's anvil to finish exiting after its test file stopped it. */
const LEFTOVER_GRACE_MS = 5_000;

export default function setup(): () => Promise<void> {
  const suiteTag = `integration-${process.pid}-${randomUUID()}`;
  // Test workers start after this hook and inherit the environment; devnets copy the tag onto
  // the processes they start.
  process.env[DEVNET_SUITE_TAG] = suiteTag;

  return async () => {
    const leftovers = await waitForTaggedProcessesGone(DEVNET_SUITE_TAG, suiteTag, LEFTOVER_GRACE_MS);
    if (leftovers.length === 0) return;
    for (const leftover of leftovers) {
      try {
        process.kill(leftover.pid, "SIGKILL");
      } catch {
        // gone meanwhile
      }
    }
    const list = leftovers.map((leftover) => `  pid ${leftover.pid}: ${leftover.command.slice(0, 160)}`).join("\n");
    throw new Error(`The integration suite left ${leftovers.length} devnet process(es) running (now killed):\n${list}`);
  };
}
