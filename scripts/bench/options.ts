import { readFileSync } from "node:fs";
/**
 * Flags and environment of `npm run bench`. Flags win over the environment.
 *
 *   --skip-build                 serve the last build as it is, even if the sources changed (BENCH_SKIP_BUILD=1)
 *   --build                      always run `next build` first (BENCH_BUILD=1)
 *   --app-dir path               serve this already built app directory instead (experiments on a patched copy) (BENCH_APP_DIR)
 *   --in-place                   build and serve the repository's own .next instead of a private snapshot (BENCH_IN_PLACE=1)
 *   --only a,b                   sections to run: overhead, cpu, turn, concurrency, block, page, devnet (BENCH_ONLY)
 *   --overhead-iterations n      paid calls per side for the payment-overhead comparison (BENCH_OVERHEAD_ITERATIONS, 100)
 *   --breakdown-iterations n     iterations of each piece in the server CPU breakdown (BENCH_BREAKDOWN_ITERATIONS, 40)
 *   --turns n                    HTTP chat turns for the turn timing (BENCH_TURNS, 60)
 *   --concurrency 1,10,50        concurrency levels (BENCH_CONCURRENCY)
 *   --concurrency-rounds n       bursts of each level, interleaved (BENCH_CONCURRENCY_ROUNDS, 10)
 *   --block-time s               block time of the realistic-chain world (BENCH_BLOCK_TIME, 2)
 *   --block-turns n              turns per world in the realistic-chain comparison (BENCH_BLOCK_TURNS, 12)
 *   --devnet-starts n            startDevnet runs for the start-to-ready time (BENCH_DEVNET_STARTS, 3)
 *   --quiet-wait s               before each measured section, wait up to s seconds for other load on the machine to drop (BENCH_QUIET_WAIT, 45; 0 = never)
 *   --warmup n                   unmeasured turns or calls before each measurement (BENCH_WARMUP, 5)
 *   --output path                where to write the report (BENCH_OUTPUT, BENCHMARKS.md)
 *   --render-only                rewrite the report from the last run's saved results, measuring nothing (after editing analysis.md)
 *   --no-write                   print only; leave BENCHMARKS.md alone (BENCH_NO_WRITE=1)
 *   --cpu-prof                   run the app server and the local world with --cpu-prof, profiles under the temp dir (BENCH_CPU_PROF=1)
 *   --server-node-options "..."  NODE_OPTIONS for the app servers, e.g. "--max-old-space-size=192" (BENCH_SERVER_NODE_OPTIONS)
 */

export const SECTIONS = ["overhead", "cpu", "turn", "concurrency", "block", "page", "devnet"] as const;
export type Section = (typeof SECTIONS)[number];

export type BenchOptions = {
  build: "auto" | "skip" | "force";
  inPlace: boolean;
  appDirectory: string | undefined;
  sections: Set<Section>;
  overheadIterations: number;
  breakdownIterations: number;
  turns: number;
  concurrency: number[];
  concurrencyRounds: number;
  blockTimeSeconds: number;
  blockTurns: number;
  devnetStarts: number;
  warmup: number;
  quietWaitSeconds: number;
  output: string;
  write: boolean;
  renderOnly: boolean;
  cpuProfile: boolean;
  serverNodeOptions: string | undefined;
};

const BOOLEAN_FLAGS = new Set(["skip-build", "build", "in-place", "no-write", "render-only", "cpu-prof", "help"]);
const VALUE_FLAGS = new Set([
  "only",
  "overhead-iterations",
  "breakdown-iterations",
  "turns",
  "concurrency",
  "concurrency-rounds",
  "block-time",
  "block-turns",
  "devnet-starts",
  "warmup",
  "quiet-wait",
  "output",
  "server-node-options",
  "app-dir",
]);

export class UsageError extends Error {
  override name = "UsageError";
}

export function parseBenchOptions(argv: readonly string[], env: NodeJS.ProcessEnv): BenchOptions | "help" {
  const flags = new Map<string, string>();
  for (let index = 0; index < argv.length; index++) {
    const argument = argv[index] ?? "";
    if (!argument.startsWith("--")) throw new UsageError(`unexpected argument "${argument}"`);
    const equals = argument.indexOf("=");
    const name = equals < 0 ? argument.slice(2) : argument.slice(2, equals);
    const inline = equals < 0 ? undefined : argument.slice(equals + 1);
    if (BOOLEAN_FLAGS.has(name)) {
      flags.set(name, inline ?? "1");
    } else if (VALUE_FLAGS.has(name)) {
      const value = inline ?? argv[++index];
      if (value === undefined) throw new UsageError(`--${name} needs a value`);
      flags.set(name, value);
    } else {
      throw new UsageError(`unknown option --${name}`);
    }
  }
  if (flags.has("help")) return "help";

  const text = (flag: string, variable: string): string | undefined => {
    const value = flags.get(flag) ?? env[variable];
    return value === undefined || value === "" ? undefined : value;
  };
  const truthy = (flag: string, variable: string) => /^(1|true|yes)$/i.test(text(flag, variable) ?? "");
  const integer = (flag: string, variable: string, fallback: number, min: number, max: number): number => {
    const value = text(flag, variable);
    if (value === undefined) return fallback;
    const number = Number(value);
    if (!Number.isInteger(number) || number < min || number > max) {
      throw new UsageError(`--${flag} (${variable}) must be an integer from ${min} to ${max}, not "${value}"`);
    }
    return number;
  };

  const only = text("only", "BENCH_ONLY");
  const sections = new Set<Section>();
  for (const name of only
    ? only
        .split(",")
        .map((part) => part.trim())
        .filter(Boolean)
    : SECTIONS) {
    if (!(SECTIONS as readonly string[]).includes(name)) throw new UsageError(`--only: unknown section "${name}" (known: ${SECTIONS.join(", ")})`);
    sections.add(name as Section);
  }

  const levelsText = text("concurrency", "BENCH_CONCURRENCY") ?? "1,10,50";
  const concurrency = levelsText.split(",").map((part) => Number(part.trim()));
  if (concurrency.length === 0 || concurrency.some((level) => !Number.isInteger(level) || level < 1 || level > 200)) {
    throw new UsageError(`--concurrency must list integers from 1 to 200, not "${levelsText}"`);
  }

  if (truthy("skip-build", "BENCH_SKIP_BUILD") && truthy("build", "BENCH_BUILD")) throw new UsageError("--skip-build and --build contradict each other");

  return {
    build: truthy("skip-build", "BENCH_SKIP_BUILD") ? "skip" : truthy("build", "BENCH_BUILD") ? "force" : "auto",
    inPlace: truthy("in-place", "BENCH_IN_PLACE"),
    appDirectory: text("app-dir", "BENCH_APP_DIR"),
    sections,
    overheadIterations: integer("overhead-iterations", "BENCH_OVERHEAD_ITERATIONS", 100, 1, 10_000),
    breakdownIterations: integer("breakdown-iterations", "BENCH_BREAKDOWN_ITERATIONS", 40, 1, 10_000),
    turns: integer("turns", "BENCH_TURNS", 60, 1, 10_000),
    concurrency,
    concurrencyRounds: integer("concurrency-rounds", "BENCH_CONCURRENCY_ROUNDS", 10, 1, 1_000),
    blockTimeSeconds: integer("block-time", "BENCH_BLOCK_TIME", 2, 1, 60),
    blockTurns: integer("block-turns", "BENCH_BLOCK_TURNS", 12, 1, 1_000),
    devnetStarts: integer("devnet-starts", "BENCH_DEVNET_STARTS", 3, 1, 50),
    warmup: integer("warmup", "BENCH_WARMUP", 5, 0, 1_000),
    quietWaitSeconds: integer("quiet-wait", "BENCH_QUIET_WAIT", 45, 0, 600),
    output: text("output", "BENCH_OUTPUT") ?? "BENCHMARKS.md",
    write: !truthy("no-write", "BENCH_NO_WRITE"),
    renderOnly: truthy("render-only", "BENCH_RENDER_ONLY"),
    cpuProfile: truthy("cpu-prof", "BENCH_CPU_PROF"),
    // By default the servers run with the Node options `npm start` uses (package.json).
    serverNodeOptions: text("server-node-options", "BENCH_SERVER_NODE_OPTIONS") ?? PRODUCTION_NODE_OPTIONS,
  };
}

export const USAGE = `Usage: npm run bench -- [options]

  --skip-build               serve the last build as it is, even if the sources changed since
  --build                    always run next build first (default: only when the sources changed)
  --app-dir path             serve this already built app directory (an experiment on a patched copy)
  --in-place                 build and serve the repository's own .next (default: a private snapshot
                             of the sources under the temp dir, which others' builds cannot disturb)
  --only a,b                 sections: overhead, cpu, turn, concurrency, block, page, devnet (default: all)
  --overhead-iterations n    paid calls per side, payment overhead (default 100)
  --breakdown-iterations n   iterations of each piece, server CPU breakdown (default 40)
  --turns n                  HTTP chat turns, turn timing (default 60)
  --concurrency 1,10,50      concurrency levels (default 1,10,50)
  --concurrency-rounds n     bursts of each level, interleaved (default 10)
  --block-time s             block time of the realistic-chain world (default 2)
  --block-turns n            turns per world, realistic chain (default 12)
  --devnet-starts n          startDevnet runs (default 3)
  --warmup n                 unmeasured warm-up turns or calls (default 5)
  --quiet-wait s             wait up to s seconds before each measured section for the machine's other
                             load to drop (default 45, at most 150 s in all; 0 = never wait)
  --output path              report file (default BENCHMARKS.md)
  --no-write                 print the table only
  --render-only              rewrite the report from the last run's saved results (after editing
                             scripts/bench/analysis.md), measuring nothing
  --cpu-prof                 profile the app server and the local world (node --cpu-prof) into a directory under the temp dir
  --server-node-options "…"  NODE_OPTIONS for the app servers (e.g. "--max-old-space-size=192")

Every option also reads from the environment: BENCH_SKIP_BUILD=1, BENCH_TURNS=100, ...`;

/** The Node options of `npm start`, read from package.json so the bench measures what ships. */
export const PRODUCTION_NODE_OPTIONS: string | undefined = (() => {
  const start = (JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8")) as { scripts?: Record<string, string> }).scripts?.start ?? "";
  return /NODE_OPTIONS='([^']*)'/.exec(start)?.[1];
})();
