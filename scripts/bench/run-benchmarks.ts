/**
 * `npm run bench`: measures the payment agent on this machine against its performance targets
 * and rewrites BENCHMARKS.md with the figures. Everything runs on 127.0.0.1: local worlds
 * (anvil, USDC, facilitator, demo services), the production build under `next start`, the
 * built-in demo model with no typing delay. See scripts/bench/options.ts for the flags.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { startChatHarness } from "../../tests/support/chat-harness";
import { REPO_ROOT, sampleRss, startAppServer, type AppServer } from "./app-server";
import { prepareBuild } from "./build";
import { measureBlockTime, measureTurns, warmUp } from "./chat-turns";
import { measureConcurrency } from "./concurrency";
import { measureDevnetStartup } from "./devnet-startup";
import { CpuMeter, waitForQuietMachine } from "./cpu-time";
import { machineInfo } from "./machine";
import { parseBenchOptions, USAGE, UsageError, type BenchOptions } from "./options";
import { measurePageWeight } from "./page-weight";
import { measurePaymentOverhead } from "./payment-overhead";
import { ANVIL, APP_SERVER, renderConsole, renderMarkdown, WORLD, type BenchResults } from "./report";
import { turnCpuBreakdown } from "./turn-cpu-breakdown";
import { startWorldProcess, type WorldProcess } from "./world";

const log = (line: string) => console.log(line);

/** The app server's environment for benchmarks: local world, demo model, no typing delay, limits out of the way. */
function serverEnv(devnetFile: string, dataDirectory: string): Record<string, string> {
  return {
    X402_NETWORK: "local",
    DEVNET_FILE: devnetFile,
    // The embedded database, fresh for each server: what `npm start` uses by default; or a
    // PostgreSQL server when BENCH_DATABASE_URL names one (to compare the two).
    DATA_DIR: dataDirectory,
    DATABASE_URL: process.env.BENCH_DATABASE_URL ?? "",
    DEMO_MODEL_CHUNK_DELAY_MS: "0",
    // The schema's ceiling; every bench request comes from one client address.
    RATE_LIMIT_REQUESTS: "100000",
    LIMIT_DEFAULT_DAILY: "100000",
    LIMIT_MAX_DAILY: "100000",
    // Empty counts as unset: the demo model, no Redis, not Vercel.
    OPENAI_API_KEY: "",
    REDIS_URL: "",
    VERCEL: "",
  };
}

/** Bound on all waiting for a quiet machine in one run, so that the run stays within minutes. */
const MAX_TOTAL_QUIET_WAIT_MS = 150_000;

/** Unmeasured turns right after the server starts: module loading and JIT warm-up. */
const SERVER_WARMUP_TURNS = 20;

/** Paid turns between two full GCs, to measure what a turn leaves in the heap. */
const HEAP_TURNS = 300;

/** USDC (base units) minted to the agent in each bench world: far more than any run spends at 0.01 a turn. */
const WALLET_USDC = 10_000_000_000n;

async function main(options: BenchOptions): Promise<number> {
  const started = Date.now();
  const results: BenchResults = { startedAt: new Date(started).toISOString(), options, machine: machineInfo(), failures: [], quiet: [] };
  const cleanup: (() => Promise<void>)[] = [];
  const runCleanup = async () => {
    for (const stop of cleanup.reverse().splice(0)) await stop().catch((error: unknown) => log(`cleanup: ${String(error)}`));
  };
  let interrupted = false;
  for (const signal of ["SIGINT", "SIGTERM"] as const) {
    process.once(signal, () => {
      interrupted = true;
      log(`\nbench: ${signal}, stopping servers and local worlds...`);
      void runCleanup().then(() => process.exit(130));
    });
  }
  const workDirectory = mkdtempSync(path.join(tmpdir(), "x402-bench-"));
  cleanup.push(async () => rmSync(workDirectory, { recursive: true, force: true }));

  let quietBudgetMs = MAX_TOTAL_QUIET_WAIT_MS;
  const section = async <T>(name: string, work: () => Promise<T>, measured = true): Promise<T | undefined> => {
    if (interrupted) return undefined;
    log(`\n== ${name}`);
    if (measured && options.quietWaitSeconds > 0) {
      const quiet = await waitForQuietMachine({ maxWaitMs: Math.min(options.quietWaitSeconds * 1000, quietBudgetMs) });
      quietBudgetMs = Math.max(0, quietBudgetMs - quiet.waitedMs);
      results.quiet.push({ section: name, ...quiet });
      if (!quiet.quiet)
        log(
          `   the machine is still ${Math.round(quiet.busyShare * 100)} % busy with other work after ${Math.round(quiet.waitedMs / 1000)} s; measuring anyway`,
        );
      else if (quiet.waitedMs > 1_500) log(`   waited ${Math.round(quiet.waitedMs / 1000)} s for other load on the machine to drop`);
    }
    const sectionStarted = performance.now();
    try {
      const value = await work();
      log(`   (${((performance.now() - sectionStarted) / 1000).toFixed(1)} s)`);
      return value;
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      log(`   FAILED: ${message}`);
      results.failures.push({ section: name, error: message.slice(0, 2_000) });
      return undefined;
    }
  };

  const wants = (name: BenchOptions["sections"] extends Set<infer S> ? S : never) => options.sections.has(name);
  const needsServer = wants("turn") || wants("concurrency") || wants("block") || wants("page");

  log(`bench: ${results.machine.cpuModel}, ${results.machine.cores} cores, node ${results.machine.node}, sections: ${[...options.sections].join(", ")}`);

  try {
    if (needsServer) {
      results.build = await section("build", () => prepareBuild(options, log), false);
    }

    // 1. In-process, before any server runs, so that nothing else competes for the two cores.
    if (wants("overhead")) {
      results.overhead = await section("1. payment overhead (runPurchase vs bare @x402/fetch)", async () => {
        const harness = await startChatHarness({ devnet: { walletUsdc: WALLET_USDC }, env: { LIMIT_DEFAULT_DAILY: "100000", LIMIT_MAX_DAILY: "100000" } });
        try {
          return await measurePaymentOverhead(harness, { iterations: options.overheadIterations, warmup: options.warmup, log });
        } finally {
          await harness.stop();
        }
      });
    }

    if (wants("cpu")) {
      results.breakdown = await section("server CPU per turn, piece by piece (in-process)", () =>
        turnCpuBreakdown({ iterations: options.breakdownIterations, heapTurns: HEAP_TURNS, log }),
      );
    }

    const build = results.build;
    const cpu = new CpuMeter();
    const startInstantServer = async (appDirectory: string) => {
      const profileDirectory = options.cpuProfile ? path.join(tmpdir(), `x402-bench-profiles-${process.pid}`) : undefined;
      const world = await startWorldProcess({
        blockTimeSeconds: 0,
        walletUsdc: WALLET_USDC,
        writeFile: path.join(workDirectory, "devnet-instant.json"),
        profileDirectory,
      });
      cleanup.push(() => world.stop());
      const nodeOptions = [options.serverNodeOptions, profileDirectory ? `--cpu-prof --cpu-prof-dir=${profileDirectory}` : undefined].filter(Boolean).join(" ");
      const server = await startAppServer(appDirectory, serverEnv(world.file, mkdtempSync(path.join(workDirectory, "data-"))), {
        nodeOptions: nodeOptions || undefined,
      });
      cleanup.push(() => server.stop());
      const rss = sampleRss(server.pid, 50);
      cleanup.push(async () => rss.stop());
      cpu.add(APP_SERVER, server.pid);
      cpu.add(WORLD, world.pid, [world.anvilPid]);
      cpu.add(ANVIL, world.anvilPid);
      results.server = { readyInMs: server.readyInMs, startRssBytes: rss.current(), processes: rss.processCount(), profileDirectory };
      // Let the server load its route modules and the JIT compile the hot paths before anything is measured.
      await warmUp(server.url, SERVER_WARMUP_TURNS);
      log(`   ${server.url} ready in ${Math.round(server.readyInMs)} ms, ${rss.processCount()} process(es), RSS ${(rss.current() / 1e6).toFixed(0)} MB`);
      if (profileDirectory) log(`   CPU profiles of the server and the local world go to ${profileDirectory} when they stop`);
      return { server, rss, appDirectory };
    };
    const running = needsServer && build ? await section("app server (instant mining)", () => startInstantServer(build.appDirectory), false) : undefined;

    if (running) {
      const url = running.server.url;
      const sampler = running.rss;
      if (wants("page")) results.page = await section("5. page weight of /", () => measurePageWeight(url), false);
      if (wants("turn")) {
        results.turn = await section("2. chat turn over HTTP", () => measureTurns(url, { turns: options.turns, warmup: options.warmup, cpu, log }));
      }
      if (wants("concurrency")) {
        results.concurrency = await section("3. concurrency", () =>
          measureConcurrency(url, sampler, { levels: options.concurrency, rounds: options.concurrencyRounds, cpu, log }),
        );
      }
      if (wants("block")) {
        results.block = await section(`4. realistic chain (${options.blockTimeSeconds} s blocks vs instant)`, async () => {
          let world: WorldProcess | undefined;
          let blockServer: AppServer | undefined;
          const suffix = `, ${options.blockTimeSeconds} s blocks`;
          const blockNames = { server: `${APP_SERVER}${suffix}`, world: `${WORLD}${suffix}`, anvil: `${ANVIL}${suffix}` };
          try {
            world = await startWorldProcess({
              blockTimeSeconds: options.blockTimeSeconds,
              walletUsdc: WALLET_USDC,
              writeFile: path.join(workDirectory, "devnet-blocks.json"),
            });
            blockServer = await startAppServer(running.appDirectory, serverEnv(world.file, mkdtempSync(path.join(workDirectory, "data-"))), {
              nodeOptions: options.serverNodeOptions,
            });
            cpu.add(blockNames.server, blockServer.pid);
            cpu.add(blockNames.world, world.pid, [world.anvilPid]);
            cpu.add(blockNames.anvil, world.anvilPid);
            return await measureBlockTime(url, blockServer.url, {
              turns: options.blockTurns,
              warmup: options.warmup,
              blockTimeSeconds: options.blockTimeSeconds,
              cpu,
              log,
            });
          } finally {
            for (const name of Object.values(blockNames)) cpu.remove(name);
            await blockServer?.stop();
            await world?.stop();
          }
        });
      }
    }
    await runCleanup();

    if (wants("devnet")) {
      results.devnet = await section("6. local world start-to-ready", () => measureDevnetStartup({ starts: options.devnetStarts, cold: true, log }));
    }
  } finally {
    await runCleanup();
  }

  results.finishedAt = new Date().toISOString();
  results.durationMs = Date.now() - started;
  console.log(`\n${renderConsole(results)}`);
  if (!interrupted) {
    writeFileSync(LAST_RESULTS, JSON.stringify({ ...results, options: { ...results.options, sections: [...results.options.sections] } }));
    if (options.write) writeReport(results, options.output);
  }
  return results.failures.length > 0 ? 1 : 0;
}

/** The last run's results, so that the report can be rendered again without measuring. */
const LAST_RESULTS = path.join(tmpdir(), `x402-bench-last-results-${path.basename(REPO_ROOT)}.json`);

function writeReport(results: BenchResults, file: string): void {
  const output = path.resolve(REPO_ROOT, file);
  writeFileSync(output, renderMarkdown(results));
  log(`\nbench: wrote ${path.relative(REPO_ROOT, output)}`);
}

function renderOnly(options: BenchOptions): number {
  if (!existsSync(LAST_RESULTS)) {
    console.error(`bench: no saved results at ${LAST_RESULTS}: run the benchmarks first`);
    return 1;
  }
  const saved = JSON.parse(readFileSync(LAST_RESULTS, "utf8")) as BenchResults & { options: BenchOptions & { sections: string[] } };
  const results: BenchResults = { ...saved, options: { ...saved.options, sections: new Set(saved.options.sections) as BenchOptions["sections"] } };
  console.log(renderConsole(results));
  writeReport(results, options.output);
  return 0;
}

let options: BenchOptions | "help";
try {
  options = parseBenchOptions(process.argv.slice(2), process.env);
} catch (error) {
  console.error(`bench: ${error instanceof UsageError ? error.message : String(error)}\n\n${USAGE}`);
  process.exit(2);
}
if (options === "help") {
  console.log(USAGE);
  process.exit(0);
}
(options.renderOnly ? Promise.resolve(renderOnly(options)) : main(options)).then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error(`bench: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
    process.exit(1);
  },
);
