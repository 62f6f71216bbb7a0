/**
 * The built app under test: `next start` on a free 127.0.0.1 port as a child process, and a
 * sampler of the server's resident memory (VmRSS of the whole process tree, from /proc).
 */
import { spawn, type ChildProcess } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { createServer } from "node:net";
import path from "node:path";

export const REPO_ROOT = path.resolve(import.meta.dirname, "../..");
export const NEXT_BIN = "node_modules/next/dist/bin/next";
const EXIT_WITH_PARENT = path.join(import.meta.dirname, "exit-with-parent.cjs");

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

export type AppServer = {
  url: string;
  pid: number;
  /** Milliseconds from spawn until the first answer of GET /api/network. */
  readyInMs: number;
  stop(): Promise<void>;
};

/** Runs `next start` in `appDirectory` (which holds the build) and waits until GET /api/network answers 200. */
export async function startAppServer(
  appDirectory: string,
  env: Record<string, string>,
  options: { nodeOptions?: string; timeoutMs?: number } = {},
): Promise<AppServer> {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const started = performance.now();
  const child: ChildProcess = spawn(process.execPath, [path.join(appDirectory, NEXT_BIN), "start", "-H", "127.0.0.1", "-p", String(port)], {
    cwd: appDirectory,
    env: {
      ...process.env,
      NODE_ENV: "production",
      NEXT_TELEMETRY_DISABLED: "1",
      NODE_OPTIONS: [`--require=${EXIT_WITH_PARENT}`, options.nodeOptions].filter(Boolean).join(" "),
      ...env,
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  const collect = (chunk: Buffer) => {
    output = (output + chunk.toString()).slice(-20_000);
    if (process.env.BENCH_SERVER_LOGS === "1") process.stderr.write(chunk);
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
    const killer = setTimeout(() => child.kill("SIGKILL"), 10_000);
    await exit;
    clearTimeout(killer);
  };

  const deadline = Date.now() + (options.timeoutMs ?? 60_000);
  while (Date.now() < deadline) {
    if (exited) throw new Error(`next start exited before it was ready:\n${output}`);
    try {
      const response = await fetch(`${url}/api/network`, { signal: AbortSignal.timeout(2_000) });
      await response.arrayBuffer();
      if (response.status === 200) return { url, pid: child.pid ?? -1, readyInMs: performance.now() - started, stop };
      if (response.status >= 500) throw new Error(`GET /api/network answered ${response.status}`);
    } catch (error) {
      if (error instanceof Error && error.message.startsWith("GET /api/network")) {
        await stop();
        throw new Error(`${error.message}; server output:\n${output}`);
      }
      // not listening yet
    }
    await sleep(100);
  }
  await stop();
  throw new Error(`next start did not become ready at ${url}:\n${output}`);
}

/** The process and its descendants, through /proc/<pid>/task/<tid>/children. */
export function processTree(root: number): number[] {
  const pids = [root];
  for (let index = 0; index < pids.length; index++) {
    const pid = pids[index] as number;
    let tasks: string[];
    try {
      tasks = readdirSync(`/proc/${pid}/task`);
    } catch {
      continue;
    }
    for (const tid of tasks) {
      try {
        const children = readFileSync(`/proc/${pid}/task/${tid}/children`, "utf8").trim();
        if (children) for (const child of children.split(/\s+/)) pids.push(Number(child));
      } catch {
        // thread ended
      }
    }
  }
  return pids;
}

/** Resident set size (bytes) of one process, from /proc/<pid>/status; 0 when it is gone. */
export function rssOf(pid: number): number {
  try {
    const match = /^VmRSS:\s+(\d+)\s+kB/m.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
    return match ? Number(match[1]) * 1024 : 0;
  } catch {
    return 0;
  }
}

export type RssSampler = {
  /** Highest summed RSS seen since the last `resetPeak` (or the start). */
  peak(): number;
  resetPeak(): void;
  current(): number;
  /** How many processes the tree had at the last sample. */
  processCount(): number;
  stop(): void;
};

/** Samples the summed VmRSS of the process tree every `intervalMs`. */
export function sampleRss(root: number, intervalMs = 50): RssSampler {
  let peak = 0;
  let last = 0;
  let count = 0;
  const sample = () => {
    const tree = processTree(root);
    count = tree.length;
    last = tree.reduce((sum, pid) => sum + rssOf(pid), 0);
    if (last > peak) peak = last;
  };
  sample();
  const timer = setInterval(sample, intervalMs);
  return {
    peak: () => peak,
    resetPeak: () => {
      sample();
      peak = last;
    },
    current: () => {
      sample();
      return last;
    },
    processCount: () => count,
    stop: () => clearInterval(timer),
  };
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
