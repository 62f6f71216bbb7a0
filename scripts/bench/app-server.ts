/**
 * The built app under test: `next start` on a free 127.0.0.1 port as a child process, and a
 * sampler of the server's resident memory (VmRSS of the whole process tree, from /proc).
 */
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { freePort, NEXT_BIN, REPO_ROOT, startNextServer, type NextServer } from "../support/next-server";

const EXIT_WITH_PARENT = path.join(import.meta.dirname, "exit-with-parent.cjs");

export { freePort, NEXT_BIN, REPO_ROOT };

export type AppServer = Omit<NextServer, "port">;

/** Runs `next start` in `appDirectory` (which holds the build) and waits until GET /api/network answers 200. */
export function startAppServer(
  appDirectory: string,
  env: Record<string, string>,
  options: { nodeOptions?: string; timeoutMs?: number } = {},
): Promise<AppServer> {
  return startNextServer({
    appDirectory,
    env,
    nodeOptions: [`--require=${EXIT_WITH_PARENT}`, options.nodeOptions].filter(Boolean).join(" "),
    echoLogs: process.env.BENCH_SERVER_LOGS === "1",
    timeoutMs: options.timeoutMs,
    stopGraceMs: 10_000,
  });
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
