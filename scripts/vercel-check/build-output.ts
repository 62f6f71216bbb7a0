/**
 * Reads what `vercel build` wrote to `.vercel/output` (Build Output API v3) and judges it
 * against what the deployment needs: the chat and reconcile functions' settings, the cron, and
 * the functions' size. Only reads files, so the tests run it on a small fake output folder.
 */
import { lstat, readdir, readFile, realpath, stat } from "node:fs/promises";
import path from "node:path";
import { z } from "zod";

/** Vercel's limit on a function's uncompressed size; the CLI counts MB as 2^20 bytes, as here. */
export const SIZE_LIMIT_MB = 250;
const MB = 1024 * 1024;

/** What the deployment is meant to have (vercel.json and `engines.node` in package.json). */
export const EXPECTED = {
  // The chat stops its own work at 45 s (CHAT_DEADLINE_MS); 50 leaves it time to end the stream.
  maxDuration: 50,
  // Node 22 is what the app is developed and tested on (the `node` dev dependency).
  runtime: "nodejs22.x",
  cronPath: "/api/cron/reconcile",
} as const;

/** The functions checked: where the builder puts each, and whether it must stream. */
export const FUNCTIONS = [
  { route: "/api/chat", folder: "functions/api/chat.func", streaming: true },
  // The MCP endpoint answers tool calls that pay, as long as a chat turn may (the builder may
  // bundle it with the chat: its folder is then a link to the chat's, and is read through it).
  { route: "/api/mcp", folder: "functions/api/mcp.func", streaming: true },
  { route: "/api/cron/reconcile", folder: "functions/api/cron/reconcile.func", streaming: false },
] as const;

// Only the fields judged here; the rest of each file is left alone (zod drops unknown keys).
const configSchema = z.object({
  version: z.literal(3),
  crons: z.array(z.object({ path: z.string(), schedule: z.string() })).optional(),
});

const functionConfigSchema = z.object({
  runtime: z.string(),
  handler: z.string(),
  maxDuration: z.number().optional(),
  // Set by the Next.js builder on every Node function of the App Router: Vercel then sends the
  // response as it is written instead of buffering it (the chat's stream depends on it).
  supportsResponseStreaming: z.boolean().optional(),
  // Paths inside the function -> files relative to the project, which the builder leaves in
  // place instead of copying them into the .func folder (the CLI uploads them from there).
  filePathMap: z.record(z.string(), z.string()).optional(),
});
export type FunctionConfig = z.infer<typeof functionConfigSchema>;

export type Check = { name: string; expected: string; found: string; ok: boolean };
export type FunctionSize = { bytes: number; files: number; missing: string[] };

async function readJson<T>(file: string, schema: z.ZodType<T>): Promise<{ ok: true; value: T } | { ok: false; error: string }> {
  let text: string;
  try {
    text = await readFile(file, "utf8");
  } catch (error) {
    return { ok: false, error: (error as NodeJS.ErrnoException).code === "ENOENT" ? "missing" : String(error) };
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return { ok: false, error: "not JSON" };
  }
  const parsed = schema.safeParse(json);
  return parsed.success ? { ok: true, value: parsed.data } : { ok: false, error: z.prettifyError(parsed.error).replaceAll("\n", " ") };
}

/**
 * The bytes a function ships: every file under its .func folder plus every file its filePathMap
 * names, symlinks followed, each real file counted once (the builder links grouped functions'
 * folders to one another, and several paths may name one file). A filePathMap entry that is a
 * symlink to a folder (Turbopack's `.next/node_modules/<package>-<hash>` links) ships as the
 * link: the files the function uses in that package are listed one by one beside it. A listed
 * file that does not exist is reported, since the deployment would lack it.
 */
export async function measureFunction(funcFolder: string, filePathMap: Record<string, string>, projectDir: string): Promise<FunctionSize> {
  const counted = new Set<string>();
  const walked = new Set<string>();
  const missing: string[] = [];
  let bytes = 0;

  const countFile = async (file: string, size: number) => {
    const real = await realpath(file);
    if (counted.has(real)) return;
    counted.add(real);
    bytes += size;
  };

  const walk = async (folder: string): Promise<void> => {
    const real = await realpath(folder);
    if (walked.has(real)) return; // a link back up the tree
    walked.add(real);
    for (const entry of await readdir(real)) {
      const entryPath = path.join(folder, entry);
      const info = await stat(entryPath).catch(() => null);
      if (info === null)
        missing.push(path.relative(projectDir, entryPath)); // a dangling link
      else if (info.isDirectory()) await walk(entryPath);
      else if (info.isFile()) await countFile(entryPath, info.size);
    }
  };

  await walk(funcFolder);
  for (const source of Object.values(filePathMap)) {
    const file = path.resolve(projectDir, source);
    const link = await lstat(file).catch(() => null);
    const info = link && (await stat(file).catch(() => null));
    if (!link || !info) missing.push(source);
    else if (info.isFile()) await countFile(file, info.size);
    else if (info.isDirectory() && !link.isSymbolicLink()) await walk(file);
  }
  return { bytes, files: counted.size, missing };
}

export function formatMb(bytes: number): string {
  return `${(bytes / MB).toFixed(2)} MB`;
}

async function checkFunction(outputDir: string, projectDir: string, spec: (typeof FUNCTIONS)[number]): Promise<{ checks: Check[]; size?: FunctionSize }> {
  const folder = path.join(outputDir, spec.folder);
  const config = await readJson(path.join(folder, ".vc-config.json"), functionConfigSchema);
  if (!config.ok) return { checks: [{ name: `${spec.route} .vc-config.json`, expected: "readable", found: config.error, ok: false }] };
  const { maxDuration, runtime, supportsResponseStreaming, filePathMap } = config.value;
  const checks: Check[] = [
    {
      name: `${spec.route} maxDuration`,
      expected: String(EXPECTED.maxDuration),
      found: String(maxDuration ?? "unset"),
      ok: maxDuration === EXPECTED.maxDuration,
    },
    { name: `${spec.route} runtime`, expected: EXPECTED.runtime, found: runtime, ok: runtime === EXPECTED.runtime },
  ];
  if (spec.streaming) {
    checks.push({ name: `${spec.route} streaming`, expected: "on", found: supportsResponseStreaming ? "on" : "off", ok: supportsResponseStreaming === true });
  }
  const size = await measureFunction(folder, filePathMap ?? {}, projectDir);
  const underLimit = size.bytes < SIZE_LIMIT_MB * MB;
  const found = `${formatMb(size.bytes)} (${size.files} files)${size.missing.length ? `, ${size.missing.length} missing: ${size.missing.slice(0, 3).join(", ")}` : ""}`;
  checks.push({ name: `${spec.route} size`, expected: `< ${SIZE_LIMIT_MB} MB`, found, ok: underLimit && size.missing.length === 0 });
  return { checks, size };
}

export type Inspection = { checks: Check[]; sizes: Map<string, FunctionSize> };

/** Every check on the build output in `outputDir`, whose traced paths are relative to `projectDir`. */
export async function inspectBuildOutput(outputDir: string, projectDir: string): Promise<Inspection> {
  const checks: Check[] = [];
  const sizes = new Map<string, FunctionSize>();
  for (const spec of FUNCTIONS) {
    const result = await checkFunction(outputDir, projectDir, spec);
    checks.push(...result.checks);
    if (result.size) sizes.set(spec.route, result.size);
  }
  const config = await readJson(path.join(outputDir, "config.json"), configSchema);
  if (!config.ok) {
    checks.push({ name: "config.json", expected: "readable", found: config.error, ok: false });
  } else {
    const cron = config.value.crons?.find((entry) => entry.path === EXPECTED.cronPath);
    checks.push({ name: "cron", expected: EXPECTED.cronPath, found: cron ? `${cron.path} (${cron.schedule})` : "absent", ok: cron !== undefined });
  }
  return { checks, sizes };
}

/** The checks as an aligned table, one line each, with a closing verdict. */
export function formatReport(checks: Check[]): string {
  const rows = checks.map((check) => [check.name, check.expected, check.found, check.ok ? "ok" : "FAILED"]);
  const header = ["CHECK", "EXPECTED", "FOUND", ""];
  const widths = header.map((title, column) => Math.max(title.length, ...rows.map((row) => row[column]!.length)));
  const line = (cells: string[]) =>
    cells
      .map((cell, column) => cell.padEnd(widths[column]!))
      .join("  ")
      .trimEnd();
  const failed = checks.filter((check) => !check.ok);
  const verdict =
    failed.length === 0
      ? "All checks passed."
      : `${failed.length} check${failed.length === 1 ? "" : "s"} failed: ${failed.map((check) => check.name).join("; ")}.`;
  return [line(header), ...rows.map(line), "", verdict].join("\n");
}
