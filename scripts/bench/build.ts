/**
 * The production build that the bench serves.
 *
 * By default it is a private snapshot: the app's sources (app/, components/, lib/, public/ and
 * the Next/TypeScript config, without test files) are copied to a directory under the system
 * temp dir, with node_modules hard-linked beside them, and `next build` runs there whenever the
 * sources' content hash differs from the one last built. Other engineers build, test and run
 * `next dev` in the shared `.next` of the repository at the same time; a private build can
 * neither be overwritten under a running benchmark nor be broken by their test files that
 * do not type-check yet.
 *
 * With `--in-place` the repository's own `.next` is used instead: built when it is missing or
 * older than the sources, as `npm run build` would.
 */
import { execFileSync, spawn } from "node:child_process";
import { createHash } from "node:crypto";
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { NEXT_BIN, REPO_ROOT } from "./app-server";

/** What the production build is made from. Tests, devnet/ and scripts/ are not part of it. */
const SOURCE_DIRECTORIES = ["app", "components", "lib", "public"];
const SOURCE_FILES = ["next.config.ts", "package.json", "tsconfig.json", "next-env.d.ts"];
const IS_TEST = /\.test\.tsx?$/;

export type PreparedBuild = {
  /** Where `next start` runs. */
  appDirectory: string;
  mode: "snapshot" | "in-place" | "given";
  action: "built" | "reused" | "skipped (--skip-build)";
  /** Short content hash of the sources the build was made from (snapshot mode). */
  sourceHash?: string;
  buildMs?: number;
};

function sourceFiles(root: string): string[] {
  const files: string[] = [];
  const walk = (relative: string) => {
    const absolute = path.join(root, relative);
    if (!existsSync(absolute)) return;
    if (statSync(absolute).isDirectory()) {
      for (const name of readdirSync(absolute).sort()) walk(path.join(relative, name));
    } else if (!IS_TEST.test(relative)) {
      files.push(relative);
    }
  };
  for (const entry of [...SOURCE_DIRECTORIES, ...SOURCE_FILES]) walk(entry);
  return files;
}

/** Hash of every source file's path and content, and of the installed dependency tree. */
function hashSources(files: readonly string[]): string {
  const hash = createHash("sha256");
  for (const file of files)
    hash
      .update(`${file}\0`)
      .update(readFileSync(path.join(REPO_ROOT, file)))
      .update("\0");
  hash.update(dependencyStamp());
  return hash.digest("hex");
}

/** npm's record of what is installed: changes whenever node_modules does. */
function dependencyStamp(): string {
  const lock = path.join(REPO_ROOT, "node_modules/.package-lock.json");
  return existsSync(lock) ? createHash("sha256").update(readFileSync(lock)).digest("hex") : "no-lock";
}

function runNextBuild(appDirectory: string): Promise<number> {
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [path.join(appDirectory, NEXT_BIN), "build"], {
      cwd: appDirectory,
      env: { ...process.env, NODE_ENV: "production", NEXT_TELEMETRY_DISABLED: "1" },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let output = "";
    const collect = (chunk: Buffer) => {
      output = (output + chunk.toString()).slice(-20_000);
    };
    child.stdout.on("data", collect);
    child.stderr.on("data", collect);
    const timer = setTimeout(() => child.kill("SIGKILL"), 900_000);
    child.on("error", reject);
    child.on("exit", (code, signal) => {
      clearTimeout(timer);
      if (code === 0) resolve(performance.now() - started);
      else reject(new Error(`next build in ${appDirectory} failed (${signal ?? code}):\n${output}`));
    });
  });
}

export async function prepareBuild(
  options: { build: "auto" | "skip" | "force"; inPlace: boolean; appDirectory?: string },
  log: (line: string) => void,
): Promise<PreparedBuild> {
  if (options.appDirectory) {
    const appDirectory = path.resolve(options.appDirectory);
    if (!existsSync(path.join(appDirectory, ".next/BUILD_ID"))) throw new Error(`--app-dir ${appDirectory} holds no build (.next/BUILD_ID)`);
    log(`   serving the build in ${appDirectory} (--app-dir)`);
    return { appDirectory, mode: "given", action: "skipped (--skip-build)" };
  }
  return options.inPlace ? prepareInPlace(options.build, log) : prepareSnapshot(options.build, log);
}

async function prepareSnapshot(build: "auto" | "skip" | "force", log: (line: string) => void): Promise<PreparedBuild> {
  const appDirectory = path.join(tmpdir(), `x402-bench-app-${createHash("sha256").update(REPO_ROOT).digest("hex").slice(0, 8)}`);
  const stampFile = path.join(appDirectory, ".bench-stamp.json");
  const stamp = existsSync(stampFile)
    ? (JSON.parse(readFileSync(stampFile, "utf8")) as { sourceHash?: string; builtHash?: string; dependencies?: string })
    : {};
  const hasBuild = existsSync(path.join(appDirectory, ".next/BUILD_ID"));

  if (build === "skip") {
    if (!hasBuild || !stamp.builtHash) throw new Error(`--skip-build, but there is no snapshot build in ${appDirectory} yet: run once without it`);
    log(`   snapshot build in ${appDirectory} used as it is (--skip-build)`);
    return { appDirectory, mode: "snapshot", action: "skipped (--skip-build)", sourceHash: stamp.builtHash.slice(0, 12) };
  }

  const files = sourceFiles(REPO_ROOT);
  const sourceHash = hashSources(files);
  if (build === "auto" && hasBuild && stamp.builtHash === sourceHash) {
    log(`   snapshot build of these sources (${sourceHash.slice(0, 12)}) exists in ${appDirectory}: reused`);
    return { appDirectory, mode: "snapshot", action: "reused", sourceHash: sourceHash.slice(0, 12) };
  }

  // Copy the sources afresh (keeping .next, whose cache makes the rebuild incremental).
  mkdirSync(appDirectory, { recursive: true });
  for (const entry of [...SOURCE_DIRECTORIES, ...SOURCE_FILES]) rmSync(path.join(appDirectory, entry), { recursive: true, force: true });
  for (const file of files) cpSync(path.join(REPO_ROOT, file), path.join(appDirectory, file), { preserveTimestamps: true });
  const dependencies = dependencyStamp();
  if (stamp.dependencies !== dependencies || !existsSync(path.join(appDirectory, "node_modules"))) {
    // Hard links: a few seconds for the whole tree, no extra disk. Turbopack refuses a symlinked
    // node_modules that points outside the project, so a symlink would not do.
    log("   linking node_modules into the snapshot...");
    rmSync(path.join(appDirectory, "node_modules"), { recursive: true, force: true });
    execFileSync("cp", ["-al", path.join(REPO_ROOT, "node_modules"), path.join(appDirectory, "node_modules")]);
  }
  writeFileSync(stampFile, JSON.stringify({ sourceHash, builtHash: undefined, dependencies }));
  log(`   next build of a snapshot of the sources (${sourceHash.slice(0, 12)}) in ${appDirectory}...`);
  const buildMs = await runNextBuild(appDirectory);
  writeFileSync(stampFile, JSON.stringify({ sourceHash, builtHash: sourceHash, dependencies }));
  return { appDirectory, mode: "snapshot", action: "built", sourceHash: sourceHash.slice(0, 12), buildMs };
}

function newestMtime(entry: string): number {
  if (!existsSync(entry)) return 0;
  const stats = statSync(entry);
  if (!stats.isDirectory()) return IS_TEST.test(entry) ? 0 : stats.mtimeMs;
  return Math.max(0, ...readdirSync(entry).map((name) => newestMtime(path.join(entry, name))));
}

async function prepareInPlace(build: "auto" | "skip" | "force", log: (line: string) => void): Promise<PreparedBuild> {
  const buildId = path.join(REPO_ROOT, ".next/BUILD_ID");
  if (build === "skip") {
    if (!existsSync(buildId)) throw new Error("--skip-build, but there is no build in .next: run `npx next build` first");
    log("   .next used as it is (--skip-build)");
    return { appDirectory: REPO_ROOT, mode: "in-place", action: "skipped (--skip-build)" };
  }
  const newest = Math.max(...[...SOURCE_DIRECTORIES, ...SOURCE_FILES].map((entry) => newestMtime(path.join(REPO_ROOT, entry))));
  if (build === "auto" && existsSync(buildId) && statSync(buildId).mtimeMs >= newest) {
    log("   .next is newer than the sources: reused");
    return { appDirectory: REPO_ROOT, mode: "in-place", action: "reused" };
  }
  log(`   .next is ${existsSync(buildId) ? "older than the sources" : "missing"}: next build...`);
  const buildMs = await runNextBuild(REPO_ROOT);
  return { appDirectory: REPO_ROOT, mode: "in-place", action: "built", buildMs };
}
