/** Renders a run's results: a table for the terminal and BENCHMARKS.md. */
import { PRODUCTION_NODE_OPTIONS } from "./options";
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import type { PreparedBuild } from "./build";
import type { BlockComparison, TurnSeries } from "./chat-turns";
import { TURN_PHASES } from "./chat-turns";
import type { ConcurrencyResult } from "./concurrency";
import type { DevnetStartup } from "./devnet-startup";
import type { MachineInfo } from "./machine";
import type { BenchOptions } from "./options";
import type { OverheadResult } from "./payment-overhead";
import type { PageWeight } from "./page-weight";
import type { Breakdown } from "./turn-cpu-breakdown";
import type { CpuUsage, QuietWait } from "./cpu-time";
import { kb, mb, ms, type Summary } from "./stats";
import { judge, LIMITS, type TargetRow } from "./targets";

export type BenchResults = {
  startedAt: string;
  finishedAt?: string;
  durationMs?: number;
  options: BenchOptions;
  machine: MachineInfo;
  build?: PreparedBuild;
  server?: { readyInMs: number; startRssBytes: number; processes: number; profileDirectory?: string };
  overhead?: OverheadResult;
  turn?: TurnSeries;
  concurrency?: ConcurrencyResult;
  block?: BlockComparison;
  page?: PageWeight;
  devnet?: DevnetStartup;
  breakdown?: Breakdown;
  failures: { section: string; error: string }[];
  /** Before each measured section: how long the run waited for other load to drop, and the load it then saw. */
  quiet: ({ section: string } & QuietWait)[];
};

/** Names of the measured processes, as the CPU tables show them. */
export const APP_SERVER = "app server (next start)";
export const WORLD = "local world (facilitator, services)";
export const ANVIL = "anvil";

/** Hand-written analysis kept beside the scripts, so that a rerun does not erase it. */
const ANALYSIS_FILE = path.join(import.meta.dirname, "analysis.md");

const VERDICT_TEXT: Record<TargetRow["verdict"], string> = { met: "met", missed: "**MISSED**", "not run": "not run" };

function table(header: string[], rows: string[][]): string {
  const line = (cells: string[]) => `| ${cells.join(" | ")} |`;
  return [line(header), line(header.map(() => "---")), ...rows.map(line)].join("\n");
}

function summaryCells(summary: Summary): string[] {
  return [ms(summary.median), ms(summary.p95), ms(summary.min), ms(summary.max), String(summary.count)];
}

function plainTable(header: string[], rows: string[][]): string {
  const widths = header.map((cell, index) => Math.max(cell.length, ...rows.map((row) => (row[index] ?? "").length)));
  const line = (cells: string[]) => cells.map((cell, index) => cell.padEnd(widths[index] ?? 0)).join("  ");
  return [line(header), widths.map((width) => "-".repeat(width)).join("  "), ...rows.map(line)].join("\n");
}

export function renderConsole(results: BenchResults): string {
  const rows = judge(results).map((row) => [row.id, row.measure, row.value, row.target, row.verdict === "missed" ? "MISSED" : row.verdict]);
  const parts = [plainTable(["#", "measure", "value", "target", "verdict"], rows)];
  if (results.turn) {
    const turn = results.turn;
    parts.push(
      "",
      plainTable(
        ["chat turn (HTTP)", "median", "p95"],
        [
          ["first byte", ms(turn.firstByte.median), ms(turn.firstByte.p95)],
          ["first p:", ms(turn.firstPayment.median), ms(turn.firstPayment.p95)],
          ["settlement p:", ms(turn.settled.median), ms(turn.settled.p95)],
          ["d:", ms(turn.finish.median), ms(turn.finish.p95)],
        ],
      ),
    );
  }
  if (results.concurrency) {
    parts.push(
      "",
      plainTable(
        ["concurrency", "turns", "errors", "turns/s", "median", "p95", "peak RSS"],
        results.concurrency.levels.map((level) => [
          String(level.concurrency),
          String(level.turns),
          String(level.errors),
          level.throughput.toFixed(1),
          ms(level.latency.median),
          ms(level.latency.p95),
          mb(level.peakRssBytes),
        ]),
      ),
    );
  }
  if (results.devnet) parts.push("", `6. startDevnet start-to-ready: median ${ms(results.devnet.inProcess.median)} (n=${results.devnet.inProcess.count})`);
  for (const failure of results.failures) parts.push(`FAILED ${failure.section}: ${failure.error.split("\n")[0]}`);
  return parts.join("\n");
}

function machineSection(results: BenchResults): string {
  const { machine } = results;
  const lines = [
    "## Machine and versions",
    "",
    table(
      ["", ""],
      [
        ["CPU", `${machine.cpuModel}, ${machine.cores} cores`],
        ["Memory", `${(machine.memoryBytes / 1024 ** 3).toFixed(1)} GiB`],
        ["OS", machine.os],
        ["Node", `${machine.node} (the project's pinned \`node\` package)`],
        ...Object.entries(machine.versions).map(([name, version]) => [`\`${name}\``, version]),
        [
          "Source",
          `commit ${machine.revision}${machine.uncommitted.length > 0 ? ` plus uncommitted changes in ${machine.uncommitted.length} file(s) at the time of the run` : ""}`,
        ],
        ["Build", buildLine(results.build)],
      ],
    ),
  ];
  if (machine.uncommitted.length > 0) lines.push("", `Uncommitted at the time of the run: ${machine.uncommitted.map((file) => `\`${file}\``).join(", ")}.`);
  if (results.options.serverNodeOptions !== PRODUCTION_NODE_OPTIONS)
    lines.push(
      "",
      `**The app servers ran with \`NODE_OPTIONS=${results.options.serverNodeOptions ?? ""}\`** (\`--server-node-options\`), not as \`npm start\` runs them.`,
    );
  else if (PRODUCTION_NODE_OPTIONS) lines.push("", `The app servers ran with \`NODE_OPTIONS=${PRODUCTION_NODE_OPTIONS}\`, as \`npm start\` runs them.`);
  if (results.quiet.length > 0) {
    lines.push(
      "",
      "Other work on the machine before each measured section (the run waits up to " +
        `${results.options.quietWaitSeconds} s for it to drop below 30 % of all cores): ` +
        results.quiet
          .map(
            (entry) =>
              `${entry.section.replace(/ \(.*\)$/, "")}: ${Math.round(entry.busyShare * 100)} %${entry.waitedMs > 1_500 ? ` after ${Math.round(entry.waitedMs / 1000)} s` : ""}${entry.quiet ? "" : " (not quiet)"}`,
          )
          .join("; ") +
        ". The CPU tables below show how much CPU other processes took during the measurements themselves.",
    );
  }
  return lines.join("\n");
}

function buildLine(build: PreparedBuild | undefined): string {
  if (!build) return "n/a";
  const where =
    build.mode === "snapshot"
      ? `private snapshot of the sources (content hash ${build.sourceHash})`
      : build.mode === "given"
        ? `**the build in ${build.appDirectory} (--app-dir), not the repository's sources**`
        : "the repository's .next";
  return `${where}: ${build.action}${build.buildMs ? ` (next build took ${(build.buildMs / 1000).toFixed(0)} s)` : ""}`;
}

function methodSection(results: BenchResults): string {
  const { options } = results;
  return [
    "## Method",
    "",
    `Run with \`npm run bench\` (${[...options.sections].join(", ")}). Everything listens on 127.0.0.1 and is started by the script: local worlds (anvil, Circle's USDC, the x402 facilitator, the paid demo services) by \`startDevnet\` — for the HTTP sections in a child process of their own, so that their CPU time is counted apart — and the production build of the app by \`next start\` (\`NODE_ENV=production\`) with \`X402_NETWORK=local\`, the built-in demo model (\`DEMO_MODEL_CHUNK_DELAY_MS=0\`: no artificial typing delay), the embedded database (PGlite, a new folder per server; a PostgreSQL server instead when \`BENCH_DATABASE_URL\` names one), \`RATE_LIMIT_REQUESTS=100000\` and daily limits of 100000 USDC. Instant mining (a block per transaction) except in section 4. Client, app server, local world and anvil share the machine's ${results.machine.cores} cores, and so does whatever else runs on the machine at the time: CPU time is read from /proc for each of our processes and for the whole machine, and the tables show how much of it was not ours. Percentiles are nearest-rank; medians of an even count average the two middle samples. ${options.warmup} warm-up turns (or payment pairs) precede each measurement and are not counted; the app server also gets 20 unmeasured turns right after it starts (route loading, JIT).`,
    "",
    'A turn is one discover-and-buy request, `{"messages":[{"role":"user","content":"What\'s the weather in Lisbon?"}]}`, each with its own `Idempotency-Key` (the app treats a repeated conversation as a retry and would not pay again); it counts as an error unless it answers 200, streams a settlement `p:` with status `confirmed`, no `e:`, no malformed line, and ends with `d:` whose finish reason is `payment-complete`. Each settlement hash must be new (no replayed payment).',
    "",
    `1. **Payment overhead** (${options.overheadIterations} pairs): in one process, \`runPurchase\` (lib/agent/purchase/run-purchase.ts) with the dependencies the route builds (guarded fetch, chain reader, memory ledger, a real \`StreamWriter\` for the \`p:\` events) against \`wrapFetchWithPayment(fetch, x402Client)\` with \`registerExactEvmScheme\` (the bare official client, local USDC allowed in its spend controls), both paying the \`weather\` service (0.01 USDC, x402 v2) from the agent wallet. Interleaved pair by pair, the order alternating (A B, B A, ...); besides the ratio of the medians, the median of the differences within each pair. Each side is split into the phases around it by timing wrappers on the dependencies it awaits.`,
    `2. **Chat turn over HTTP** (${options.turns} turns, one after another): times from sending the request to the response headers (first byte), the first body chunk, the first \`p:\` line, the settlement \`p:\` (status \`confirmed\`), and \`d:\`, read with the project's \`StreamDecoder\`. The server-side split comes from the \`at\` stamps the server puts on each \`p:\` event.`,
    `3. **Concurrency** (levels ${options.concurrency.join(", ")}; ${options.concurrencyRounds} rounds): each round sends a burst of that many turns at once and waits for all (levels below 5 repeat the burst to reach 5 turns a round); levels are interleaved round by round. Throughput is successful turns ÷ wall time of the bursts. The server's memory is the summed \`VmRSS\` (/proc/<pid>/status) of the \`next start\` process and its descendants, sampled every 50 ms.`,
    `4. **Realistic chain** (${options.blockTurns} pairs): a second local world with \`blockTimeSeconds: ${options.blockTimeSeconds}\` and a second \`next start\` on it; turns alternate between it and the instant world. Before each turn on the block-time world the client waits a random fraction of a block (not counted), as a user arrives at a random moment: turns sent back to back would lock onto the block clock and always wait almost a whole block.`,
    "5. **Page weight**: `GET /` from the production server; every `<script src>` in the HTML is fetched and gzipped with zlib at level 9 and the sizes are summed (`nomodule` polyfills, which modern browsers skip, are listed but not counted).",
    `6. **Local world** (${options.devnetStarts} starts): wall time of \`await startDevnet()\` in the bench process (modules already loaded), and once a fresh \`tsx devnet/cli.ts\` process (what \`npm run devnet\` runs) from spawn to its ready line.`,
    "",
    `**Server CPU breakdown** (${options.breakdownIterations} iterations each, no target of its own): pieces of a turn (whole turn through \`handleChatRequest\`, \`runPurchase\`, signing, a JSON-RPC read, an outbound request, one model text step, the stream writer) run in the bench process against a world in another process, timed with \`process.cpuUsage()\`; then 300 paid turns between two full garbage collections show what a turn leaves in the heap.`,
  ].join("\n");
}

function targetsSection(rows: TargetRow[]): string {
  return [
    "## Targets",
    "",
    table(
      ["#", "Measure", "Result", "Target", "Verdict"],
      rows.map((row) => [row.id, row.measure, row.value, row.target, VERDICT_TEXT[row.verdict]]),
    ),
  ].join("\n");
}

function overheadSection(result: OverheadResult): string {
  const header = ["", "median", "p95", "min", "max", "n"];
  const phaseRows = (phases: Record<string, Summary>) => Object.entries(phases).map(([phase, summary]) => [phase, ms(summary.median), ms(summary.p95)]);
  return [
    "## 1. Payment overhead",
    "",
    `Service \`${result.service}\`; ${result.iterations} interleaved pairs; errors: ours ${result.errors.ours}, bare ${result.errors.bare}${result.errors.firstError ? ` (first: ${result.errors.firstError})` : ""}.`,
    "",
    table(header, [
      ["ours: `runPurchase`", ...summaryCells(result.ours)],
      ["bare: `@x402/fetch`", ...summaryCells(result.bare)],
      ["ratio of medians", `${result.ratio.toFixed(2)}×`, `${(result.ours.p95 / result.bare.p95).toFixed(2)}× (of p95s)`, "", "", ""],
      ["ours − bare, pair by pair", ...summaryCells(result.pairedDifference)],
    ]),
    "",
    `Median overhead within a pair: ${ms(result.pairedDifference.median)} per payment, i.e. ${((result.bare.median + result.pairedDifference.median) / result.bare.median).toFixed(2)}× the bare client's median.`,
    "",
    "Where each side's time goes (per call):",
    "",
    table(["ours: phase", "median", "p95"], phaseRows(result.oursPhases)),
    "",
    table(["bare: phase", "median", "p95"], phaseRows(result.barePhases)),
    "",
    "The paid request (the service verifies with the facilitator, produces its answer, settles on chain and answers) is the same work for both sides; what differs is what runs around it.",
  ].join("\n");
}

/** CPU per turn by process for one or more intervals, plus the machine's busy share and others' load. */
function cpuTable(columns: { name: string; usage: CpuUsage | undefined; turns: number }[]): string {
  const present = columns.filter((column): column is { name: string; usage: CpuUsage; turns: number } => Boolean(column.usage) && column.turns > 0);
  if (present.length === 0) return "";
  const names = [...new Set(present.flatMap((column) => Object.keys(column.usage.processes)))];
  const perTurn = (value: number, turns: number) => ms(value / turns);
  return table(
    ["CPU time per turn", ...present.map((column) => column.name)],
    [
      ...names.map((name) => [name, ...present.map((column) => perTurn(column.usage.processes[name] ?? 0, column.turns))]),
      ["**all of ours**", ...present.map((column) => `**${perTurn(column.usage.oursMs, column.turns)}**`)],
      ["other processes on the machine (not ours)", ...present.map((column) => perTurn(column.usage.othersMs, column.turns))],
      ["machine busy (all cores)", ...present.map((column) => `${Math.round(column.usage.machineBusyShare * 100)} %`)],
    ],
  );
}

function turnRows(series: TurnSeries): string[][] {
  return [
    ["first byte (headers)", ...summaryCells(series.firstByte)],
    ["first body chunk", ...summaryCells(series.firstChunk)],
    ["first `p:`", ...summaryCells(series.firstPayment)],
    ["settlement `p:` (confirmed)", ...summaryCells(series.settled)],
    ["`d:` (whole turn)", ...summaryCells(series.finish)],
  ];
}

function phaseTable(columns: { name: string; series: TurnSeries }[]): string {
  return table(
    [
      "server-side phase (from `p:` stamps)",
      ...columns.flatMap((column) => [`${column.name ? `${column.name} ` : ""}median`, `${column.name ? `${column.name} ` : ""}p95`]),
    ],
    TURN_PHASES.map((phase) => [
      phase,
      ...columns.flatMap((column) => [ms(column.series.phases[phase]?.median ?? Number.NaN), ms(column.series.phases[phase]?.p95 ?? Number.NaN)]),
    ]),
  );
}

function errorsLine(series: TurnSeries): string {
  return `${series.turns} turns, ${series.errors} errors${series.firstError ? ` (first: ${series.firstError})` : ""}, ${series.duplicates} replayed settlements.`;
}

function shapeLine(series: TurnSeries): string {
  const { shape } = series;
  return `A turn's response: ${shape.events} protocol lines (${shape.textEvents} of them \`0:\` text), ${kb(shape.bytes)}, received in ${shape.chunks} chunks (medians).`;
}

function turnSection(series: TurnSeries): string {
  return [
    "## 2. Chat turn over HTTP (instant mining)",
    "",
    `${errorsLine(series)} ${shapeLine(series)}`,
    "",
    table(["time from request to", "median", "p95", "min", "max", "n"], turnRows(series)),
    "",
    phaseTable([{ name: "", series }]),
    "",
    cpuTable([{ name: "sequential turns", usage: series.cpu, turns: series.turns }]),
    "",
    "`request → discovering` covers the HTTP request, validation, the rate limit, the model's first step and the `discover_services` tool starting; `discovered → quoted` the model's second step and the unpaid request that returns the 402; `verifying → confirmed` the paid request (facilitator verify, service answer, on-chain settlement); `delivered → d: received` the model's last step (the answer text) and the end of the stream.",
  ].join("\n");
}

function concurrencySection(result: ConcurrencyResult): string {
  return [
    "## 3. Concurrency",
    "",
    `Server processes sampled: ${result.serverProcesses}; RSS before the first burst: ${mb(result.idleRssBytes)}; peak over all levels: ${mb(result.peakRssBytes)}.`,
    "",
    table(
      ["concurrent turns", "turns", "errors", "throughput", "median", "p95", "max", "peak RSS during the level"],
      result.levels.map((level) => [
        String(level.concurrency),
        String(level.turns),
        `${level.errors}${level.duplicates ? ` (+${level.duplicates} replayed)` : ""}`,
        `${level.throughput.toFixed(1)} turns/s`,
        ms(level.latency.median),
        ms(level.latency.p95),
        ms(level.latency.max),
        mb(level.peakRssBytes),
      ]),
    ),
    ...result.levels.filter((level) => level.firstError).map((level) => `\nFirst error at ${level.concurrency}: ${level.firstError}`),
    "",
    cpuTable(result.levels.map((level) => ({ name: `${level.concurrency} at once`, usage: level.cpu, turns: level.turns }))),
    "",
    phaseTable(result.levels.map((level) => ({ name: String(level.concurrency), series: level.series }))),
    "",
    "Levels are interleaved, so memory grown at a high level is still resident when a lower level runs next: the peak that matters is the overall one.",
  ].join("\n");
}

function blockSection(result: BlockComparison): string {
  return [
    `## 4. Realistic chain: ${result.blockTimeSeconds} s blocks`,
    "",
    `${result.blockTimeSeconds} s blocks: ${errorsLine(result.blocks)} Instant: ${errorsLine(result.instant)}`,
    "",
    table(
      ["time from request to", `${result.blockTimeSeconds} s blocks median`, "p95", "instant median", "p95"],
      turnRows(result.blocks).map((row, index) => [
        row[0] ?? "",
        row[1] ?? "",
        row[2] ?? "",
        turnRows(result.instant)[index]?.[1] ?? "",
        turnRows(result.instant)[index]?.[2] ?? "",
      ]),
    ),
    "",
    phaseTable([
      { name: `${result.blockTimeSeconds} s`, series: result.blocks },
      { name: "instant", series: result.instant },
    ]),
    "",
    result.cpu
      ? `Machine busy during this section: ${Math.round(result.cpu.machineBusyShare * 100)} % of all cores, ${ms(result.cpu.othersMs / (result.instant.turns + result.blocks.turns))} per turn by processes that are not ours.`
      : "",
    "",
    `A transfer sent at a random moment waits on average half a block (${ms(result.blockTimeSeconds * 500)}) for inclusion, at most a whole one; the target allows one block time plus ${LIMITS.blockMarginMs} ms for the whole turn.`,
  ].join("\n");
}

function pageSection(result: PageWeight): string {
  return [
    "## 5. Page weight of `/`",
    "",
    `JavaScript referenced by the HTML of \`/\`: ${kb(result.totalGzipBytes)} gzipped (${kb(result.totalRawBytes)} raw) in ${result.scripts.filter((script) => !script.noModule).length} files; the HTML itself is ${kb(result.htmlGzipBytes)} gzipped.`,
    "",
    table(
      ["script", "gzipped", "raw", "counted"],
      result.scripts.map((script) => [`\`${script.src}\``, kb(script.gzipBytes), kb(script.rawBytes), script.noModule ? "no (nomodule)" : "yes"]),
    ),
  ].join("\n");
}

function breakdownSection({ lines, retained }: Breakdown, results: BenchResults): string {
  const overHttp = results.turn?.cpu ? (results.turn.cpu.processes[APP_SERVER] ?? Number.NaN) / results.turn.turns : Number.NaN;
  return [
    "## Server CPU per turn, piece by piece",
    "",
    `Measured in the bench process with \`scripts/bench/turn-cpu-breakdown.ts\` (${results.options.breakdownIterations} iterations each, after warm-up), the local world in a process of its own so that only the app's code is counted: CPU time (user + system, all threads) per operation.${Number.isFinite(overHttp) ? ` For comparison, the \`next start\` server spent ${ms(overHttp)} of CPU per buy turn over HTTP in section 2; the difference to the in-process turn is what Next adds (HTTP, routing, response piping).` : ""}`,
    "",
    table(
      ["operation", "CPU", "wall"],
      lines.map((line) => [line.name.startsWith("  ") ? `&nbsp;&nbsp;${line.name.trim()}` : line.name, ms(line.cpuMs), ms(line.wallMs)]),
    ),
    ...(retained
      ? [
          "",
          `Heap in use after a full GC: ${mb(retained.beforeBytes)} before and ${mb(retained.afterBytes)} after ${retained.turns} more paid turns (bursts of 50), ${(retained.perTurnBytes / 1000).toFixed(1)} kB per turn. The in-memory store keeps ledger entries and idempotency records for 24 h, so some growth per turn is by design; the rest of the server's RSS is heap the garbage collector has not yet given back.`,
        ]
      : []),
  ].join("\n");
}

function devnetSection(result: DevnetStartup): string {
  const cold = result.cold;
  return [
    "## 6. Local world start-to-ready",
    "",
    table(
      ["", "median", "p95", "min", "max", "n"],
      [
        ["`await startDevnet()` (warm process)", ...summaryCells(result.inProcess)],
        ["`readyInMs` as startDevnet reports it", ...summaryCells(result.reported)],
      ],
    ),
    "",
    cold
      ? cold.error
        ? `Fresh \`tsx devnet/cli.ts\` process: failed (${cold.error}).`
        : `Fresh \`tsx devnet/cli.ts\` process (what \`npm run devnet\` runs, without npm itself): ${ms(cold.spawnToReadyMs)} from spawn to its ready line; it printed ${ms(cold.printedProcessMs ?? Number.NaN)} since process start, of which startDevnet ${ms(cold.printedStartDevnetMs ?? Number.NaN)}.`
      : "",
    "",
    "No target is set for this one; it is the time a developer waits after `npm run devnet` and each integration test file waits in `beforeAll`.",
  ].join("\n");
}

export function renderMarkdown(results: BenchResults): string {
  const rows = judge(results);
  const missed = rows.filter((row) => row.verdict === "missed");
  const parts = [
    "# Benchmarks",
    "",
    `Written by \`npm run bench\` (scripts/bench/) on ${results.startedAt}; the run took ${((results.durationMs ?? 0) / 1000).toFixed(0)} s. Rerun it to refresh every figure below; the analysis at the end is kept in scripts/bench/analysis.md.`,
    "",
    missed.length === 0 ? "All targets that ran were met." : `Targets missed: ${missed.map((row) => row.id).join(", ")} (see the analysis at the end).`,
    "",
    targetsSection(rows),
    "",
    machineSection(results),
    "",
    methodSection(results),
  ];
  if (results.server)
    parts.push(
      "",
      `The instant-mining app server was ready ${ms(results.server.readyInMs)} after \`next start\` was spawned (${results.server.processes} process(es), ${mb(results.server.startRssBytes)} RSS).`,
    );
  if (results.overhead) parts.push("", overheadSection(results.overhead));
  if (results.breakdown) parts.push("", breakdownSection(results.breakdown, results));
  if (results.turn) parts.push("", turnSection(results.turn));
  if (results.concurrency) parts.push("", concurrencySection(results.concurrency));
  if (results.block) parts.push("", blockSection(results.block));
  if (results.page) parts.push("", pageSection(results.page));
  if (results.devnet) parts.push("", devnetSection(results.devnet));
  if (results.failures.length > 0) {
    parts.push("", "## Sections that failed to run", "", ...results.failures.map((failure) => `- ${failure.section}: \`${failure.error.split("\n")[0]}\``));
  }
  if (existsSync(ANALYSIS_FILE)) parts.push("", readFileSync(ANALYSIS_FILE, "utf8").trim());
  return `${parts.join("\n")}\n`;
}
