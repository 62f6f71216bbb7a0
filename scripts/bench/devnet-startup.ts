/**
 * 6. Start-to-ready time of the local world: `startDevnet()` in this (warm) process, several
 * times, and once `npm run devnet`'s entry point as a fresh process (TypeScript loading and
 * module imports included), read from the line it prints when ready.
 */
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { startDevnet } from "../../devnet";
import { REPO_ROOT } from "./app-server";
import { summarize, type Summary } from "./stats";

export type DevnetStartup = {
  /** Wall time of `await startDevnet()` in this process. */
  inProcess: Summary;
  /** `readyInMs` as startDevnet reports it. */
  reported: Summary;
  /** A fresh `tsx devnet/cli.ts` process: from spawn to its "ready" line. */
  cold?: { spawnToReadyMs: number; printedProcessMs?: number; printedStartDevnetMs?: number; error?: string };
};

export async function measureDevnetStartup(options: { starts: number; cold: boolean; log: (line: string) => void }): Promise<DevnetStartup> {
  const wall: number[] = [];
  const reported: number[] = [];
  for (let index = 0; index < options.starts; index++) {
    const started = performance.now();
    const devnet = await startDevnet();
    wall.push(performance.now() - started);
    reported.push(devnet.readyInMs);
    await devnet.stop();
  }
  options.log(`  startDevnet: ${wall.map((value) => Math.round(value)).join(", ")} ms`);
  return { inProcess: summarize(wall), reported: summarize(reported), cold: options.cold ? await coldStart() : undefined };
}

/** Runs devnet/cli.ts as `npm run devnet` does (tsx), waits for its ready line, then stops it. */
async function coldStart(): Promise<NonNullable<DevnetStartup["cold"]>> {
  const directory = mkdtempSync(path.join(tmpdir(), "x402-bench-devnet-"));
  const started = performance.now();
  const child = spawn(
    process.execPath,
    [path.join(REPO_ROOT, "node_modules/tsx/dist/cli.mjs"), "devnet/cli.ts", "--file", path.join(directory, "devnet.json")],
    {
      cwd: REPO_ROOT,
      env: { ...process.env },
      stdio: ["ignore", "pipe", "pipe"],
    },
  );
  let output = "";
  try {
    return await new Promise((resolve) => {
      const timer = setTimeout(() => resolve({ spawnToReadyMs: Number.NaN, error: `no ready line within 60 s: ${output.slice(-300)}` }), 60_000);
      const onData = (chunk: Buffer) => {
        output += chunk.toString();
        const ready = /ready in (\d+) ms \(startDevnet (\d+) ms\)/.exec(output);
        if (ready) {
          clearTimeout(timer);
          resolve({ spawnToReadyMs: performance.now() - started, printedProcessMs: Number(ready[1]), printedStartDevnetMs: Number(ready[2]) });
        }
      };
      child.stdout.on("data", onData);
      child.stderr.on("data", onData);
      child.on("exit", (code) => {
        clearTimeout(timer);
        resolve({ spawnToReadyMs: Number.NaN, error: `exited with ${code} before ready: ${output.slice(-300)}` });
      });
    });
  } finally {
    if (child.exitCode === null && child.signalCode === null) {
      const exited = new Promise((resolve) => child.once("exit", resolve));
      child.kill("SIGTERM");
      const killer = setTimeout(() => child.kill("SIGKILL"), 10_000);
      await exited;
      clearTimeout(killer);
    }
    rmSync(directory, { recursive: true, force: true });
  }
}
