/**
 * `npm run api-keys -- <create | list | revoke>`: the operator's API keys, in the database the
 * server uses (DATABASE_URL, else the embedded one under DATA_DIR). Exit codes: 0 done,
 * 1 failed, 2 bad arguments.
 *
 *   npm run api-keys -- create --name ci --per-payment 0.5 --per-request 1 --daily 5 --expires 30d
 *   npm run api-keys -- list
 *   npm run api-keys -- revoke 0123456789abcdef
 *
 * The embedded database allows one process at a time: while the app runs, this refuses (see
 * lib/db/folder-lock.ts) rather than open it beside the app.
 */
import { existsSync } from "node:fs";
import path from "node:path";
import { AppError } from "../lib/errors";
import { ConfigError, parseEnv } from "../lib/env";
import { createStore, databaseOptionsFromEnv } from "../lib/store/create-store";
import { parseArguments, USAGE } from "./api-keys/arguments";
import { runCommand, type Outcome } from "./api-keys/run-command";

/**
 * Reads `.env.local`, then `.env`, as Next.js does for the server: the environment wins over
 * both, and `.env.local` over `.env` (a variable already set is never replaced).
 */
function loadEnvFiles(directory: string): void {
  for (const name of [".env.local", ".env"]) {
    const file = path.join(directory, name);
    if (existsSync(file)) process.loadEnvFile(file);
  }
}

async function main(argv: string[]): Promise<Outcome> {
  const now = Date.now();
  const parsed = parseArguments(argv, now);
  if (!parsed.ok) return { code: 2, stdout: "", stderr: `${parsed.error}\n\n${USAGE}` };
  if (parsed.command.kind === "help") return { code: 0, stdout: USAGE, stderr: "" };
  loadEnvFiles(process.cwd());
  // Only where the database is matters here; the rest of the configuration takes its defaults.
  const env = parseEnv({ DATABASE_URL: process.env.DATABASE_URL, DATA_DIR: process.env.DATA_DIR });
  const store = createStore({ database: databaseOptionsFromEnv(env) });
  try {
    return await runCommand(parsed.command, store.apiKeys, now);
  } finally {
    await store.close();
  }
}

function describe(error: unknown): string {
  if (AppError.isInstance(error)) return error.details ?? error.safeMessage;
  if (error instanceof ConfigError) return error.message;
  return error instanceof Error ? error.message : String(error);
}

main(process.argv.slice(2)).then(
  ({ code, stdout, stderr }) => {
    if (stdout) process.stdout.write(`${stdout}\n`);
    if (stderr) process.stderr.write(`${stderr}\n`);
    process.exitCode = code;
  },
  (error: unknown) => {
    process.stderr.write(`api-keys: ${describe(error)}\n`);
    process.exitCode = 1;
  },
);
