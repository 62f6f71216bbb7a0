/**
 * A process that starts a devnet and then just waits: the crashed-parent test kills it with
 * SIGKILL and checks that its anvil goes too. Prints one JSON line with the processes it owns.
 */
import { startDevnet } from "../../devnet";

const devnet = await startDevnet();
process.stdout.write(`${JSON.stringify({ ready: true, ...devnet.processes })}\n`);
// Keep running until killed.
setInterval(() => {}, 60_000);
