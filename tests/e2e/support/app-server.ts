/**
 * Runs the BUILT app (`next start`) as a child process on a free 127.0.0.1 port, for the
 * browser tests. Uses the Node that runs the tests (22 under `npm run`), not the machine's.
 */
import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { freePort, NEXT_BIN, REPO_ROOT, startNextServer, type NextServer } from "../../../scripts/support/next-server";

const NEXT = path.join(REPO_ROOT, NEXT_BIN);

export type AppServer = NextServer & {
  /**
   * Sends `signal` to the server process at once (synchronously, so a test can kill it at an
   * exact point of a stream it is reading), then waits until it has exited and removes its data
   * folder. SIGKILL is a crash: nothing of the server's own cleanup runs.
   */
  kill(signal: NodeJS.Signals): Promise<void>;
};
export { freePort, REPO_ROOT };

/** Runs `next build` once, unless E2E_SKIP_BUILD=1 (then an existing `.next` build is required). */
export async function buildAppOnce(): Promise<void> {
  const buildId = path.join(REPO_ROOT, ".next/BUILD_ID");
  if (process.env.E2E_SKIP_BUILD === "1") {
    if (!existsSync(buildId)) throw new Error("E2E_SKIP_BUILD=1 but there is no build in .next: run `npx next build` first.");
    return;
  }
  await runToEnd(process.execPath, [NEXT, "build"], { NEXT_TELEMETRY_DISABLED: "1" }, 600_000);
}

function runToEnd(command: string, args: string[], env: Record<string, string>, timeoutMs: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd: REPO_ROOT, env: { ...process.env, ...env }, stdio: ["ignore", "pipe", "pipe"] });
    let output = "";
    const collect = (chunk: Buffer) => {
      output = (output + chunk.toString()).slice(-20_000);
    };
    child.stdout.on("data", collect);
    child.stderr.on("data", collect);
    const timer = setTimeout(() => child.kill("SIGKILL"), timeoutMs);
    child.on("error", reject);
    child.on("exit", (code, signal) => {
      clearTimeout(timer);
      if (code === 0) resolve();
      else reject(new Error(`${path.basename(args[0] ?? command)} ${args.slice(1).join(" ")} failed (${signal ?? code}):\n${output}`));
    });
  });
}

/**
 * Starts `next start` with the given environment and waits until it answers. Unless `env` names
 * a DATA_DIR, each server gets a fresh one (removed when it stops): the journal and budgets of an
 * earlier run, or of another server, must not leak into this one.
 */
export async function startAppServer(env: Record<string, string>, options: { timeoutMs?: number } = {}): Promise<AppServer> {
  const ownDataDir = env.DATA_DIR ? undefined : mkdtempSync(path.join(os.tmpdir(), "x402-e2e-data-"));
  // Retried: a removal that meets a file still being written or unlinked (the server's last
  // writes as it exits, on a slow disk) answers ENOTEMPTY once and succeeds on the next try.
  // A temporary folder that still cannot be removed is left to the system's temp cleanup and
  // named on stderr: its removal is housekeeping, not something a test checks (a CI run failed
  // on it once, ENOTEMPTY inside pglite/base after every test of the file had passed).
  const removeDataDir = () => {
    if (!ownDataDir) return;
    try {
      rmSync(ownDataDir, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 });
    } catch (error) {
      console.error(`e2e: left the server's data folder ${ownDataDir} (${String(error)})`);
    }
  };
  try {
    const server = await startNextServer({
      env: { ...env, ...(ownDataDir ? { DATA_DIR: ownDataDir } : {}) },
      timeoutMs: options.timeoutMs,
      echoLogs: process.env.E2E_SERVER_LOGS === "1",
    });
    return {
      ...server,
      stop: async () => {
        await server.stop();
        removeDataDir();
      },
      kill: (signal) => {
        // Never -1 (or 0): that would signal every process we may signal, or our own group.
        if (server.pid > 0) {
          try {
            process.kill(server.pid, signal);
          } catch {
            // Already gone.
          }
        }
        // stop() only waits for the exit now (its SIGTERM finds no process), then cleans up.
        return server.stop().then(() => void removeDataDir());
      },
    };
  } catch (error) {
    removeDataDir();
    throw error;
  }
}
