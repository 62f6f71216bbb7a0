/**
 * Runs the pinned Vercel CLI through `npm exec` rather than as a dev dependency. The CLI is
 * about 290 packages and 358 MB installed (162 MB of it a native CLI binary not used here),
 * about 16 s from the registry mirror: as a dev dependency every `npm install` of the project
 * would pay that for one CI step. `npm exec` installs it once into npm's cache (~/.npm/_npx) and
 * reuses it; `--prefer-offline` keeps later runs from asking the registry at all (without it, a
 * run with no network waits about a minute for the registry before using the cache). The cost:
 * the CLI's own dependencies are resolved from their ranges, not from package-lock.json.
 *
 * Pinned to 60.1.3, the newest that installs from the registry here: 61.0.0 and later depend on
 * packages it lacks (@vercel/backends@11.0.2, sandbox@4.4.0).
 */
import { spawn } from "node:child_process";

export const VERCEL_CLI_VERSION = "60.1.3";

/**
 * The environment of the CLI: nothing that reaches Vercel or the internet. No token or project
 * ids from the caller's environment (the build needs no account), no telemetry (the CLI's or
 * Next.js's), no update check (which would also let the CLI upgrade itself), and the JavaScript
 * CLI rather than the native binary a user may have opted into. VERCEL_ANALYZE_BUILD_OUTPUT has
 * the CLI print its own size of each function and fail the build at 250 MB, a second opinion on
 * the size measured here.
 */
export function cliEnvironment(base: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const env = { ...base };
  for (const key of ["VERCEL_TOKEN", "VERCEL_ORG_ID", "VERCEL_PROJECT_ID"]) delete env[key];
  return {
    ...env,
    VERCEL_TELEMETRY_DISABLED: "1",
    NEXT_TELEMETRY_DISABLED: "1",
    NO_UPDATE_NOTIFIER: "1",
    VERCEL_CLI_USE_NATIVE_BINARY: "0",
    VERCEL_ANALYZE_BUILD_OUTPUT: "1",
  };
}

/** Runs `vercel <args>` in `cwd` with the output shown as it comes; resolves to the exit code. */
export function runVercel(args: string[], cwd: string, env: NodeJS.ProcessEnv): Promise<number> {
  const npmArgs = ["exec", "--yes", "--prefer-offline", `--package=vercel@${VERCEL_CLI_VERSION}`, "--", "vercel", ...args];
  return new Promise((resolve, reject) => {
    const child = spawn("npm", npmArgs, { cwd, env, stdio: ["ignore", "inherit", "inherit"] });
    child.on("error", reject);
    child.on("close", (code, signal) => resolve(code ?? (signal ? 128 : 1)));
  });
}
