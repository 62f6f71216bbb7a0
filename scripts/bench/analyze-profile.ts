/**
 * Summarizes a V8 .cpuprofile (from `node --cpu-prof`, e.g. `npm run bench -- --cpu-prof`):
 * self time by package or file, and the top functions by self and by inclusive time.
 *
 *   npx tsx scripts/bench/analyze-profile.ts <file.cpuprofile> [--top 25] [--match text] [--after ms]
 *
 * `--after` ignores the first milliseconds of the profile (start-up and warm-up). `--match` lists the functions whose location contains the text (e.g. `lib/`, `viem`) with
 * their inclusive time. Frames in bundled files (Next's server chunks) are mapped back to their
 * original source through the `.map` files beside them, so that `lib/...` code shows by name.
 */
import { existsSync, readFileSync } from "node:fs";
import { SourceMap } from "node:module";
import path from "node:path";
import { fileURLToPath } from "node:url";

const REPO_ROOT = path.resolve(import.meta.dirname, "../..");

type CallFrame = { functionName: string; url: string; lineNumber: number; columnNumber: number };
type ProfileNode = { id: number; callFrame: CallFrame; children?: number[] };
type Profile = { nodes: ProfileNode[]; samples: number[]; timeDeltas: number[]; startTime: number; endTime: number };

/** Groups a script URL: a package under node_modules, the app's built chunks, Node internals, or the file. */
export function areaOf(url: string): string {
  if (!url) return "(native / V8)";
  if (url.startsWith("node:")) return "node: internals";
  const modules = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (modules) {
    const name = modules[1] ?? "";
    if (name === "next") {
      const compiled = /next\/dist\/compiled\/([^/]+)/.exec(url);
      return compiled ? `next (compiled ${compiled[1]})` : "next";
    }
    return name;
  }
  const chunk = /\.next\/server\/(.*)$/.exec(url);
  if (chunk) return `.next/server/${chunk[1]}`;
  return url.replace(/^file:\/\//, "");
}

function label(frame: CallFrame): string {
  const where = frame.url ? `${frame.url.replace(/^file:\/\//, "").replace(/^.*node_modules\//, "")}:${frame.lineNumber + 1}:${frame.columnNumber + 1}` : "";
  return `${frame.functionName || "(anonymous)"} ${where}`.trim();
}

const maps = new Map<string, SourceMap | undefined>();

function sourceMapFor(url: string): SourceMap | undefined {
  if (!maps.has(url)) {
    let map: SourceMap | undefined;
    try {
      const file = url.startsWith("file://") ? fileURLToPath(url) : url;
      if (file.startsWith("/") && existsSync(`${file}.map`)) map = new SourceMap(JSON.parse(readFileSync(`${file}.map`, "utf8")));
    } catch {
      map = undefined;
    }
    maps.set(url, map);
  }
  return maps.get(url);
}

/** Paths inside this repository, relative to it ("lib/..."), whether they came as file URLs or paths. */
function relative(url: string): string {
  const file = url.replace(/^file:\/\//, "");
  return file.startsWith(`${REPO_ROOT}/`) ? file.slice(REPO_ROOT.length + 1) : url;
}

/** The original location of a frame in a bundled file, when a source map says where it came from. */
function original(frame: CallFrame): CallFrame {
  const map = frame.url ? sourceMapFor(frame.url) : undefined;
  if (!map) return { ...frame, url: relative(frame.url) };
  const entry = map.findEntry(frame.lineNumber, frame.columnNumber) as {
    originalSource?: string;
    originalLine?: number;
    originalColumn?: number;
    name?: string;
  };
  if (!entry.originalSource) return frame;
  const source = entry.originalSource.replace(/^(\.\.\/)+/, "").replace(/%40/g, "@");
  return {
    functionName: frame.functionName && frame.functionName.length > 2 ? frame.functionName : (entry.name ?? frame.functionName),
    url: source,
    lineNumber: entry.originalLine ?? 0,
    columnNumber: entry.originalColumn ?? 0,
  };
}

export function analyze(profile: Profile, options: { top: number; match?: string; ownPrefix?: string; afterMs?: number }): string {
  for (const node of profile.nodes) node.callFrame = original(node.callFrame);
  if (options.afterMs) {
    // Keep only the samples taken after the first `afterMs` of the profile (start-up, warm-up).
    let elapsed = 0;
    const keep = profile.timeDeltas.map((delta) => (elapsed += delta) / 1000 >= (options.afterMs ?? 0));
    profile = { ...profile, samples: profile.samples.filter((_, index) => keep[index]), timeDeltas: profile.timeDeltas.filter((_, index) => keep[index]) };
  }
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const parent = new Map<number, number>();
  for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id);

  const self = new Map<number, number>();
  profile.samples.forEach((id, index) => self.set(id, (self.get(id) ?? 0) + (profile.timeDeltas[index] ?? 0) / 1000));
  const totalMs = [...self.values()].reduce((sum, value) => sum + value, 0);
  const idleMs = [...self]
    .filter(([id]) => ["(idle)", "(program)"].includes(byId.get(id)?.callFrame.functionName ?? ""))
    .reduce((sum, [, value]) => sum + value, 0);
  const gcMs = [...self].filter(([id]) => byId.get(id)?.callFrame.functionName === "(garbage collector)").reduce((sum, [, value]) => sum + value, 0);

  const areas = new Map<string, number>();
  const functionsSelf = new Map<string, number>();
  const functionsTotal = new Map<string, number>();
  /** Self time of every sample charged to the innermost frame of our own code on its stack. */
  const ownPrefix = options.ownPrefix ?? "lib/";
  const byOwnCaller = new Map<string, number>();
  for (const [id, ms] of self) {
    const node = byId.get(id);
    if (!node) continue;
    const name = node.callFrame.functionName;
    if (name === "(idle)" || name === "(program)") continue;
    areas.set(areaOf(node.callFrame.url), (areas.get(areaOf(node.callFrame.url)) ?? 0) + ms);
    functionsSelf.set(label(node.callFrame), (functionsSelf.get(label(node.callFrame)) ?? 0) + ms);
    // Inclusive: every distinct frame on the stack gets the sample once.
    const seen = new Set<string>();
    let charged = false;
    for (let current: number | undefined = id; current !== undefined; current = parent.get(current)) {
      const frame = byId.get(current)?.callFrame;
      if (!frame) break;
      const key = label(frame);
      if (!charged && frame.url.startsWith(ownPrefix)) {
        charged = true;
        const owner = `${frame.url}: ${frame.functionName || "(anonymous)"}${areaOf(node.callFrame.url) === frame.url ? "" : ` → ${areaOf(node.callFrame.url)}`}`;
        byOwnCaller.set(owner, (byOwnCaller.get(owner) ?? 0) + ms);
      }
      if (seen.has(key)) continue;
      seen.add(key);
      functionsTotal.set(key, (functionsTotal.get(key) ?? 0) + ms);
    }
  }
  const busy = totalMs - idleMs;
  const top = (map: Map<string, number>, count: number, filter: (key: string) => boolean = () => true) =>
    [...map]
      .filter(([key]) => filter(key))
      .sort((a, b) => b[1] - a[1])
      .slice(0, count)
      .map(([key, ms]) => `  ${ms.toFixed(0).padStart(7)} ms  ${((ms / busy) * 100).toFixed(1).padStart(5)}%  ${key}`)
      .join("\n");
  const lines = [
    `profile: ${(totalMs / 1000).toFixed(1)} s sampled, busy ${(busy / 1000).toFixed(2)} s (idle/program ${(idleMs / 1000).toFixed(1)} s), GC ${(gcMs / 1000).toFixed(2)} s`,
    "",
    "self time by area (% of busy):",
    top(areas, options.top),
    "",
    "top functions by self time:",
    top(functionsSelf, options.top),
    "",
    "top functions by inclusive time:",
    top(functionsTotal, options.top),
    "",
    `self time charged to the innermost ${ownPrefix} frame on the stack (our function → where the time was spent):`,
    top(byOwnCaller, options.top),
  ];
  if (options.match) {
    const match = options.match;
    lines.push(
      "",
      `functions matching "${match}", by inclusive time:`,
      top(functionsTotal, options.top, (key) => key.includes(match)),
    );
  }
  return lines.join("\n");
}

if (process.argv[1] && import.meta.filename === process.argv[1]) {
  const [file, ...rest] = process.argv.slice(2);
  if (!file) {
    console.error("usage: tsx scripts/bench/analyze-profile.ts <file.cpuprofile> [--top 25] [--match text] [--after ms]");
    process.exit(2);
  }
  const topIndex = rest.indexOf("--top");
  const matchIndex = rest.indexOf("--match");
  const afterIndex = rest.indexOf("--after");
  const profile = JSON.parse(readFileSync(file, "utf8")) as Profile;
  console.log(
    analyze(profile, {
      top: topIndex >= 0 ? Number(rest[topIndex + 1]) : 25,
      match: matchIndex >= 0 ? rest[matchIndex + 1] : undefined,
      afterMs: afterIndex >= 0 ? Number(rest[afterIndex + 1]) : undefined,
    }),
  );
}
