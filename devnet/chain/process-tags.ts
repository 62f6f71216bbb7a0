import { readdirSync, readFileSync } from "node:fs";

/**
 * Environment variables that mark the processes a devnet starts (the reaper and anvil), so that
 * a test suite can prove none of them is left behind. They travel in the environment rather
 * than on the command line because anvil rejects arguments it does not know.
 */
export const DEVNET_PROCESS_TAG = "X402_DEVNET_PROCESS";
/** Set by a test suite (or anyone) before starting devnets; copied onto every process they start. */
export const DEVNET_SUITE_TAG = "X402_DEVNET_SUITE";

export type TaggedProcess = { pid: number; command: string; tags: Record<string, string> };

/**
 * Processes started by a devnet (anvil and its reaper: they carry `X402_DEVNET_PROCESS`) whose
 * environment also carries `name=value`. Linux `/proc` only; elsewhere an empty list, since
 * there is no portable way to read another process's environment. Other processes that merely
 * inherited a suite tag (test workers, for instance) are not devnet processes and not listed.
 */
export function findTaggedProcesses(name: string, value: string): TaggedProcess[] {
  if (process.platform !== "linux") return [];
  const found: TaggedProcess[] = [];
  const wanted = `${name}=${value}`;
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    const pid = Number(entry);
    let environment: string;
    let command: string;
    try {
      environment = readFileSync(`/proc/${entry}/environ`, "utf8");
      command = readFileSync(`/proc/${entry}/cmdline`, "utf8").split("\0").join(" ").trim();
      // A zombie has been killed and only waits for its parent to collect its status.
      if (/^\S+ \(.*\) Z/.test(readFileSync(`/proc/${entry}/stat`, "utf8"))) continue;
    } catch {
      continue; // the process ended while we looked, or is not ours to read
    }
    const variables = environment.split("\0");
    if (!variables.includes(wanted) || !variables.some((variable) => variable.startsWith(`${DEVNET_PROCESS_TAG}=`))) continue;
    const tags: Record<string, string> = {};
    for (const variable of variables) {
      if (variable.startsWith(`${DEVNET_PROCESS_TAG}=`) || variable.startsWith(`${DEVNET_SUITE_TAG}=`)) {
        const separator = variable.indexOf("=");
        tags[variable.slice(0, separator)] = variable.slice(separator + 1);
      }
    }
    found.push({ pid, command, tags });
  }
  return found;
}

/** Polls until no process carries the tag, or the time is up; returns what is still running. */
export async function waitForTaggedProcessesGone(name: string, value: string, timeoutMs: number): Promise<TaggedProcess[]> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const remaining = findTaggedProcesses(name, value);
    if (remaining.length === 0 || Date.now() >= deadline) return remaining;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
