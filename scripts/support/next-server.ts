/**
 * The built app as a child process: `next start` on a free 127.0.0.1 port, ready once
 * `GET /api/network` answers 200. Shared by the browser tests and the benchmarks. Uses the
 * Node that runs the caller (22 under `npm run`), not the machine's.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { createServer } from "node:net";
import path from "node:path";

export const REPO_ROOT = path.resolve(import.meta.dirname, "../..");
export const NEXT_BIN = "node_modules/next/dist/bin/next";

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

export type NextServer = {
  url: string;
  port: number;
  pid: number;
  /** Milliseconds from spawn until the first 200 of GET /api/network. */
  readyInMs: number;
  stop(): Promise<void>;
};

export type NextServerOptions = {
  /** The directory that holds the build (and node_modules). */
  appDirectory?: string;
  env: Record<string, string>;
  /** NODE_OPTIONS for the server. */
  nodeOptions?: string;
  /** Copy the server's output to stderr (for debugging). */
  echoLogs?: boolean;
  timeoutMs?: number;
  /** How long SIGTERM may take before SIGKILL. */
  stopGraceMs?: number;
};

export async function startNextServer(options: NextServerOptions): Promise<NextServer> {
  const appDirectory = options.appDirectory ?? REPO_ROOT;
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const started = performance.now();
  // As `npm start` runs it (package.json): next.config.ts loaded by Node's own type stripping.
  const args = [path.join(appDirectory, NEXT_BIN), "start", "-H", "127.0.0.1", "-p", String(port), "--experimental-next-config-strip-types"];
  const child: ChildProcess = spawn(process.execPath, args, {
    cwd: appDirectory,
    env: {
      ...process.env,
      NODE_ENV: "production",
      NEXT_TELEMETRY_DISABLED: "1",
      ...(options.nodeOptions ? { NODE_OPTIONS: options.nodeOptions } : {}),
      ...options.env,
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  const collect = (chunk: Buffer) => {
    output = (output + chunk.toString()).slice(-20_000);
    if (options.echoLogs) process.stderr.write(chunk);
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
    const killer = setTimeout(() => child.kill("SIGKILL"), options.stopGraceMs ?? 5_000);
    await exit;
    clearTimeout(killer);
  };

  const readyUrl = `${url}/api/network`;
  const deadline = Date.now() + (options.timeoutMs ?? 60_000);
  while (Date.now() < deadline) {
    if (exited) throw new Error(`next start exited before it was ready:\n${output}`);
    let status: number | undefined;
    try {
      const response = await fetch(readyUrl, { signal: AbortSignal.timeout(2_000) });
      await response.arrayBuffer();
      status = response.status;
    } catch {
      // Not listening yet.
    }
    if (status === 200) return { url, port, pid: child.pid ?? -1, readyInMs: performance.now() - started, stop };
    if (status !== undefined && status >= 500) {
      await stop();
      throw new Error(`GET /api/network answered ${status}; server output:\n${output}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  await stop();
  throw new Error(`next start did not become ready at ${readyUrl}:\n${output}`);
}
