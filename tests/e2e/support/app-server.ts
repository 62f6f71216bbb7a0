/**
 * Runs the BUILT app (`next start`) as a child process on a free 127.0.0.1 port, for the
 * browser tests. Uses the Node that runs the tests (22 under `npm run`), not the machine's.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { existsSync } from "node:fs";
import { createServer } from "node:net";
import path from "node:path";

export const REPO_ROOT = path.resolve(import.meta.dirname, "../../..");
const NEXT_BIN = path.join(REPO_ROOT, "node_modules/next/dist/bin/next");

export type AppServer = { url: string; port: number; stop(): Promise<void> };

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.on("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      const port = typeof address === "object" && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

/** Runs `next build` once, unless E2E_SKIP_BUILD=1 (then an existing `.next` build is required). */
export async function buildAppOnce(): Promise<void> {
  const buildId = path.join(REPO_ROOT, ".next/BUILD_ID");
  if (process.env.E2E_SKIP_BUILD === "1") {
    if (!existsSync(buildId)) throw new Error("E2E_SKIP_BUILD=1 but there is no build in .next: run `npx next build` first.");
    return;
  }
  await runToEnd(process.execPath, [NEXT_BIN, "build"], { NEXT_TELEMETRY_DISABLED: "1" }, 600_000);
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

/** Starts `next start` with the given environment and waits until it answers. */
export async function startAppServer(env: Record<string, string>, options: { readyPath?: string; timeoutMs?: number } = {}): Promise<AppServer> {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const child: ChildProcess = spawn(process.execPath, [NEXT_BIN, "start", "-H", "127.0.0.1", "-p", String(port)], {
    cwd: REPO_ROOT,
    env: { ...process.env, NODE_ENV: "production", NEXT_TELEMETRY_DISABLED: "1", ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  const collect = (chunk: Buffer) => {
    output = (output + chunk.toString()).slice(-20_000);
    if (process.env.E2E_SERVER_LOGS === "1") process.stderr.write(chunk);
  };
  child.stdout?.on("data", collect);
  child.stderr?.on("data", collect);
  let exited = false;
  const exit = new Promise<void>((resolve) => {
    child.on("exit", () => {
      exited = true;
      resolve();
    });
  });

  const stop = async () => {
    if (exited) return;
    child.kill("SIGTERM");
    const killer = setTimeout(() => child.kill("SIGKILL"), 5_000);
    await exit;
    clearTimeout(killer);
  };

  const deadline = Date.now() + (options.timeoutMs ?? 60_000);
  const readyUrl = `${url}${options.readyPath ?? "/api/network"}`;
  while (Date.now() < deadline) {
    if (exited) throw new Error(`next start exited before it was ready:\n${output}`);
    try {
      const response = await fetch(readyUrl, { signal: AbortSignal.timeout(2_000) });
      await response.arrayBuffer();
      if (response.status < 500) return { url, port, stop };
    } catch {
      // Not listening yet.
    }
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  await stop();
  throw new Error(`next start did not become ready at ${readyUrl}:\n${output}`);
}
