/**
 * `npm run vercel:check`: builds the app as Vercel would, with the Vercel CLI's `vercel build`,
 * offline and without an account, then checks what it wrote to `.vercel/output`: the chat and
 * reconcile functions' maxDuration, runtime and size, the chat's streaming, and the cron.
 * Exit codes: 0 all checks passed, 1 a check or the build failed.
 *
 *   npm run vercel:check                 build, then check
 *   npm run vercel:check -- --no-build   check the `.vercel/output` of an earlier build
 *
 * The build runs `npm install` (vercel.json's installCommand; nothing to do after an install, and
 * it needs no network then) and `next build`, which replaces `.next` with an ordinary production
 * build (`next start` serves it).
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { formatReport, inspectBuildOutput } from "./vercel-check/build-output";
import { prepareProjectLink } from "./vercel-check/project-link";
import { cliEnvironment, runVercel, VERCEL_CLI_VERSION } from "./vercel-check/vercel-cli";

const USAGE = "Usage: npm run vercel:check [-- --no-build]";

function seconds(since: number): string {
  return `${((performance.now() - since) / 1000).toFixed(1)} s`;
}

async function build(projectDir: string): Promise<boolean> {
  const link = await prepareProjectLink(projectDir);
  if (link.kind === "unusable") {
    process.stderr.write(`vercel:check: ${link.reason}\n`);
    return false;
  }
  process.stdout.write(
    link.kind === "offline"
      ? "Project settings: the Next.js defaults (a stand-in .vercel/project.json, removed afterwards)\n"
      : `Project settings: those of the linked project ${link.projectId} (.vercel/project.json)\n`,
  );
  // An empty global configuration: no saved login is read, and nothing the CLI saves (its
  // telemetry and update state) lands in the user's own.
  const globalConfig = await mkdtemp(path.join(tmpdir(), "vercel-check-"));
  const env = cliEnvironment(process.env);
  try {
    let started = performance.now();
    // Apart so that the report tells fetching the CLI (the first time) from building.
    if ((await runVercel(["--version", "--global-config", globalConfig], projectDir, env)) !== 0) {
      process.stderr.write(`vercel:check: could not run vercel@${VERCEL_CLI_VERSION} through npm exec\n`);
      return false;
    }
    process.stdout.write(`vercel@${VERCEL_CLI_VERSION} ready in ${seconds(started)}\n`);
    started = performance.now();
    const code = await runVercel(["build", "--yes", "--global-config", globalConfig], projectDir, env);
    if (code !== 0) {
      process.stderr.write(`vercel:check: vercel build failed (exit ${code}); see its output above\n`);
      return false;
    }
    process.stdout.write(`vercel build took ${seconds(started)}\n`);
    return true;
  } finally {
    await rm(globalConfig, { recursive: true, force: true });
    if (link.kind === "offline") await link.remove();
  }
}

async function main(argv: string[]): Promise<number> {
  if (argv.some((arg) => arg !== "--no-build")) {
    process.stderr.write(`${USAGE}\n`);
    return 1;
  }
  const projectDir = process.cwd();
  if (!argv.includes("--no-build") && !(await build(projectDir))) return 1;
  const { checks } = await inspectBuildOutput(path.join(projectDir, ".vercel", "output"), projectDir);
  process.stdout.write(`\nVercel build output (vercel@${VERCEL_CLI_VERSION}):\n${formatReport(checks)}\n`);
  return checks.every((check) => check.ok) ? 0 : 1;
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    process.stderr.write(`vercel:check: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exitCode = 1;
  },
);
