/**
 * A local world in a process of its own, for the HTTP benchmarks: its CPU time is then measured
 * apart from the load generator's, and its services answer while the client works. Started by
 * world.ts with one JSON argument (options); prints one JSON line when ready; takes line
 * commands on stdin (`flush`: every channel service claims and settles now, answered by a JSON
 * line `{"flushed":true}`); stops the world on SIGTERM, SIGINT or when its stdin closes (the
 * bench ended, however it ended).
 */
import { startDevnet } from "../../devnet";

type WorldOptions = {
  blockTimeSeconds: number;
  walletUsdc: string;
  writeFile: string;
  channelClaimIntervalSeconds?: number;
  heartbeatSeconds?: number;
};

async function main(): Promise<void> {
  const options = JSON.parse(process.argv[2] ?? "{}") as WorldOptions;
  const devnet = await startDevnet({
    blockTimeSeconds: options.blockTimeSeconds,
    walletUsdc: BigInt(options.walletUsdc),
    writeFile: options.writeFile,
    ...(options.channelClaimIntervalSeconds === undefined ? {} : { channelClaimIntervalSeconds: options.channelClaimIntervalSeconds }),
    ...(options.heartbeatSeconds === undefined ? {} : { heartbeatSeconds: options.heartbeatSeconds }),
  });
  let stopping = false;
  const stop = () => {
    if (stopping) return;
    stopping = true;
    void devnet.stop().finally(() => process.exit(0));
  };
  process.on("SIGTERM", stop);
  process.on("SIGINT", stop);
  process.stdin.on("end", stop);
  process.stdin.on("close", stop);
  let pending = "";
  process.stdin.on("data", (chunk: Buffer) => {
    pending += chunk.toString();
    const lines = pending.split("\n");
    pending = lines.pop() ?? "";
    for (const line of lines) {
      if (line.trim() !== "flush") continue;
      devnet.channels.flush().then(
        () => process.stdout.write(`${JSON.stringify({ flushed: true })}\n`),
        (error: unknown) => process.stdout.write(`${JSON.stringify({ flushed: false, error: String(error) })}\n`),
      );
    }
  });
  process.stdin.resume();
  void devnet.ended.then(() => {
    if (!stopping) {
      console.error("world: anvil ended unexpectedly");
      process.exit(1);
    }
  });
  process.stdout.write(`${JSON.stringify({ ready: true, anvilPid: devnet.processes.anvilPid, readyInMs: devnet.readyInMs })}\n`);
}

main().catch((error: unknown) => {
  console.error(`world: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
});
