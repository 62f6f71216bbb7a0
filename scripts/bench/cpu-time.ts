/** CPU time (user + system) consumed by processes, from /proc/<pid>/stat, in milliseconds. */
import { readFileSync } from "node:fs";
import { cpus } from "node:os";
import { processTree } from "./app-server";

const TICKS_PER_SECOND = 100;

/** utime + stime of one process (its threads included), in ms; 0 when it is gone. */
export function cpuTimeOf(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    // The command name may contain spaces: fields are counted after its closing parenthesis.
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / TICKS_PER_SECOND;
  } catch {
    return 0;
  }
}

export function cpuTimeOfTree(root: number): number {
  return processTree(root).reduce((sum, pid) => sum + cpuTimeOf(pid), 0);
}

/** CPU time of named process trees, this process, and the whole machine at one moment. */
export type CpuSnapshot = { at: number; processes: Record<string, number>; machineBusyMs: number };

/** What was spent between two snapshots, in ms of CPU time (one core for one second = 1000). */
export type CpuUsage = {
  wallMs: number;
  processes: Record<string, number>;
  /** Sum of `processes`. */
  oursMs: number;
  /** Every process on the machine, ours and others' (other engineers' tests, builds). */
  machineBusyMs: number;
  /** machineBusyMs − oursMs: load we did not cause. */
  othersMs: number;
  /** Busy share of the machine's capacity over the interval (1 = every core busy all the time). */
  machineBusyShare: number;
};

export const CLIENT = "load generator (bench process)";

/** Reads CPU time of the process trees it is told about; `exclude` leaves a subtree out (anvil under the world). */
export class CpuMeter {
  private readonly trees = new Map<string, { pid: number; exclude: number[] }>();

  add(name: string, pid: number, exclude: number[] = []): void {
    this.trees.set(name, { pid, exclude });
  }

  remove(name: string): void {
    this.trees.delete(name);
  }

  snapshot(): CpuSnapshot {
    const processes: Record<string, number> = {};
    for (const [name, { pid, exclude }] of this.trees) {
      processes[name] = cpuTimeOfTree(pid) - exclude.reduce((sum, excluded) => sum + cpuTimeOfTree(excluded), 0);
    }
    const own = process.cpuUsage();
    processes[CLIENT] = (own.user + own.system) / 1000;
    return { at: performance.now(), processes, machineBusyMs: machineCpu().busyMs };
  }
}

export function cpuBetween(before: CpuSnapshot, after: CpuSnapshot): CpuUsage {
  const processes = Object.fromEntries(Object.keys(after.processes).map((name) => [name, (after.processes[name] ?? 0) - (before.processes[name] ?? 0)]));
  const oursMs = Object.values(processes).reduce((sum, value) => sum + value, 0);
  const wallMs = after.at - before.at;
  const machineBusyMs = after.machineBusyMs - before.machineBusyMs;
  return {
    wallMs,
    processes,
    oursMs,
    machineBusyMs,
    othersMs: Math.max(0, machineBusyMs - oursMs),
    machineBusyShare: machineBusyMs / (wallMs * cpus().length),
  };
}

/** Adds up usages of several intervals (the rounds of one concurrency level). */
export function addUsage(total: CpuUsage | undefined, next: CpuUsage): CpuUsage {
  if (!total) return next;
  const processes = { ...total.processes };
  for (const [name, value] of Object.entries(next.processes)) processes[name] = (processes[name] ?? 0) + value;
  const wallMs = total.wallMs + next.wallMs;
  const machineBusyMs = total.machineBusyMs + next.machineBusyMs;
  const oursMs = total.oursMs + next.oursMs;
  return { wallMs, processes, oursMs, machineBusyMs, othersMs: total.othersMs + next.othersMs, machineBusyShare: machineBusyMs / (wallMs * cpus().length) };
}

/** Busy and total CPU time of the whole machine (all cores, every process), from /proc/stat, in ms. */
export function machineCpu(): { busyMs: number; totalMs: number } {
  try {
    const line = readFileSync("/proc/stat", "utf8").split("\n")[0] ?? "";
    const values = line.trim().split(/\s+/).slice(1).map(Number);
    const idle = (values[3] ?? 0) + (values[4] ?? 0);
    const total = values.slice(0, 8).reduce((sum, value) => sum + value, 0);
    return { busyMs: ((total - idle) * 1000) / TICKS_PER_SECOND, totalMs: (total * 1000) / TICKS_PER_SECOND };
  } catch {
    return { busyMs: Number.NaN, totalMs: Number.NaN };
  }
}

export type QuietWait = { waitedMs: number; busyShare: number; quiet: boolean };

/**
 * Waits (bounded) until the machine is quiet: the share of all cores busy over a one-second
 * window is at most `threshold`. The benchmark's own servers idle between sections, so what
 * keeps the machine busy then is someone else's work (other engineers' tests and builds).
 */
export async function waitForQuietMachine(options: { maxWaitMs: number; threshold?: number }): Promise<QuietWait> {
  const threshold = options.threshold ?? 0.3;
  const started = performance.now();
  for (;;) {
    const before = machineCpu();
    const windowStarted = performance.now();
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    const after = machineCpu();
    const busyShare = (after.busyMs - before.busyMs) / ((performance.now() - windowStarted) * cpus().length);
    const waitedMs = performance.now() - started;
    if (busyShare <= threshold) return { waitedMs, busyShare, quiet: true };
    if (waitedMs >= options.maxWaitMs) return { waitedMs, busyShare, quiet: false };
  }
}
