/** Starts world-process.ts as a child process and waits until its local world is ready. */
import { spawn } from "node:child_process";
import path from "node:path";
import { REPO_ROOT } from "./app-server";

export type WorldProcess = {
  /** The coordinates file the app reads (DEVNET_FILE). */
  file: string;
  pid: number;
  anvilPid: number;
  readyInMs: number;
  /** Every channel service claims what it holds and settles it now; resolves when done. */
  flush(): Promise<void>;
  stop(): Promise<void>;
};

export async function startWorldProcess(options: {
  blockTimeSeconds: number;
  walletUsdc: bigint;
  writeFile: string;
  /** Seconds between the channel services' claim rounds (0: only on flush and stop). */
  channelClaimIntervalSeconds?: number;
  /** The instant-mining chain's heartbeat block (0: none). */
  heartbeatSeconds?: number;
  /** Profile the world's process too (node --cpu-prof), written here when it stops. */
  profileDirectory?: string;
}): Promise<WorldProcess> {
  const { profileDirectory, ...worldOptions } = options;
  const profile = profileDirectory ? ["--cpu-prof", `--cpu-prof-dir=${profileDirectory}`, "--cpu-prof-name=world-${pid}.cpuprofile"] : [];
  const child = spawn(
    process.execPath,
    [
      ...profile,
      "--import",
      "tsx",
      "--conditions=react-server",
      path.join(import.meta.dirname, "world-process.ts"),
      JSON.stringify({ ...worldOptions, walletUsdc: worldOptions.walletUsdc.toString() }),
    ],
    { cwd: REPO_ROOT, env: { ...process.env }, stdio: ["pipe", "pipe", "pipe"] },
  );
  let output = "";
  let exited = false;
  // Lines the world prints after it is ready: the answers to `flush`, in order.
  const answers: ((line: string) => void)[] = [];
  let ready = false;
  const exit = new Promise<void>((resolve) =>
    child.once("exit", () => {
      exited = true;
      resolve();
    }),
  );
  const stop = async () => {
    if (exited) return;
    child.kill("SIGTERM");
    const killer = setTimeout(() => child.kill("SIGKILL"), 15_000);
    await exit;
    clearTimeout(killer);
  };
  try {
    const started = await new Promise<{ anvilPid: number; readyInMs: number }>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`the local world did not start within 60 s:\n${output}`)), 60_000);
      child.stderr.on("data", (chunk: Buffer) => {
        output = (output + chunk.toString()).slice(-10_000);
      });
      let buffer = "";
      child.stdout.on("data", (chunk: Buffer) => {
        buffer += chunk.toString();
        const lines = buffer.split("\n");
        buffer = lines.pop() ?? "";
        for (const line of lines.filter((candidate) => candidate.startsWith("{"))) {
          if (ready) answers.shift()?.(line);
          else {
            ready = true;
            clearTimeout(timer);
            resolve(JSON.parse(line) as { anvilPid: number; readyInMs: number });
          }
        }
      });
      child.once("exit", (code) => {
        clearTimeout(timer);
        reject(new Error(`the local world exited (${code}) before it was ready:\n${output}`));
      });
    });
    const flush = () =>
      new Promise<void>((resolve, reject) => {
        answers.push((line) => {
          const answer = JSON.parse(line) as { flushed: boolean; error?: string };
          if (answer.flushed) resolve();
          else reject(new Error(`the local world's channel services did not flush: ${answer.error ?? "unknown"}`));
        });
        child.stdin.write("flush\n");
      });
    return { file: options.writeFile, pid: child.pid ?? -1, anvilPid: started.anvilPid, readyInMs: started.readyInMs, flush, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}
