/**
 * Starts the crash server (main.ts) as a child process and waits until it listens.
 */
import { spawn } from "node:child_process";
import path from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = fileURLToPath(new URL("../../../", import.meta.url));
const TSX = path.join(ROOT, "node_modules/tsx/dist/cli.mjs");
const MAIN = path.join(ROOT, "tests/support/crash-server/main.ts");

const START_TIMEOUT_MS = 180_000;

export type CrashServer = {
  origin: string;
  /** Resolves with the signal or exit code when the process ends. */
  exited: Promise<string>;
  stop(): Promise<void>;
};

export async function startCrashServer(env: Record<string, string>): Promise<CrashServer> {
  const child = spawn(process.execPath, [TSX, "--conditions=react-server", MAIN], {
    cwd: ROOT,
    env: { ...process.env, NODE_ENV: "test", ...env },
    stdio: ["ignore", "pipe", "pipe"],
    // Its own process group: tsx runs the server in a child, and stopping must reach both.
    detached: true,
  });
  const exited = new Promise<string>((resolve) => child.once("exit", (code, signal) => resolve(signal ?? String(code))));
  let output = "";
  const port = await new Promise<number>((resolve, reject) => {
    // It opens (and on first use creates) its database before it listens: minutes on a cold, busy machine.
    const timer = setTimeout(() => reject(new Error(`crash server did not start:\n${output}`)), START_TIMEOUT_MS);
    child.stdout.on("data", (chunk: Buffer) => {
      output += chunk.toString();
      const match = output.match(/READY (\d+)/);
      if (match) {
        clearTimeout(timer);
        resolve(Number(match[1]));
      }
    });
    child.stderr.on("data", (chunk: Buffer) => {
      output = (output + chunk.toString()).slice(-10_000);
    });
    void exited.then((how) => {
      clearTimeout(timer);
      reject(new Error(`crash server exited (${how}) before listening:\n${output}`));
    });
  });
  return {
    origin: `http://127.0.0.1:${port}`,
    exited,
    async stop() {
      if (child.exitCode === null && child.signalCode === null && child.pid) {
        try {
          process.kill(-child.pid, "SIGKILL");
        } catch {
          // Already gone.
        }
      }
      await exited;
    },
  };
}
