/**
 * `npm run devnet`: starts the local x402 world, writes its coordinates file, prints them, and
 * stays up until Ctrl-C or SIGTERM, then stops everything. Flags: `--block-time <seconds>`,
 * `--heartbeat <seconds>`, `--confirmations <n>`, `--slow-delay-ms <ms>`, `--settle-timeout-ms
 * <ms>`, `--file <path>` (environment: DEVNET_BLOCK_TIME, DEVNET_HEARTBEAT, DEVNET_CONFIRMATIONS,
 * DEVNET_SLOW_DELAY_MS, DEVNET_SETTLE_TIMEOUT_MS, DEVNET_FILE).
 */
import { resolve } from "node:path";
import { describeDevnet } from "./describe-devnet";
import { parseDevnetCliOptions } from "./devnet-options";
import { startDevnet, type Devnet } from "./start-devnet";
import { watchParent } from "./watch-parent";

async function main(): Promise<void> {
  let options;
  try {
    options = parseDevnetCliOptions(process.argv.slice(2), process.env);
  } catch (error) {
    console.error(`devnet: ${error instanceof Error ? error.message : String(error)}`);
    process.exit(2);
  }

  let devnet: Devnet;
  try {
    devnet = await startDevnet(options);
  } catch (error) {
    console.error(`devnet: could not start: ${error instanceof Error ? error.message : String(error)}`);
    process.exit(1);
  }

  let stopping = false;
  const shutdown = async (reason: string, exitCode: number) => {
    if (stopping) return;
    stopping = true;
    console.log(`\ndevnet: ${reason}; stopping...`);
    await devnet.stop();
    console.log("devnet: stopped");
    process.exit(exitCode);
  };
  for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"] as const) {
    process.on(signal, () => void shutdown(`received ${signal}`, 0));
  }
  watchParent(() => void shutdown("parent process ended", 0));
  void devnet.ended.then(() => shutdown("anvil ended unexpectedly", 1));

  const file = options.writeFile ? resolve(options.writeFile) : undefined;
  const { faults: _faults, stop: _stop, ended: _ended, processes: _processes, channels: _channels, readyInMs, ...coordinates } = devnet;
  console.log(JSON.stringify(coordinates, null, 2));
  console.log(describeDevnet(coordinates, file));
  // Since the process started: includes loading TypeScript and the x402 libraries.
  console.log(`devnet: ready in ${Math.round(performance.now())} ms (startDevnet ${readyInMs} ms). Press Ctrl-C to stop.`);
}

void main();
