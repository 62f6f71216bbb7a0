/**
 * Starts a throwaway PostgreSQL server (Debian package `postgresql`) for tests: 127.0.0.1, a
 * free port, a fresh data folder, no fsync. Postgres refuses to run as root, so as root it
 * runs as the `postgres` user the package creates. Each `database()` call gives a fresh,
 * empty database on it, so suites do not share tables.
 */
import { execFile, spawn, type ChildProcess } from "node:child_process";
import { accessSync, chmodSync, chownSync, constants, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import pg from "pg";
import { findFreePort } from "./redis-server";

const run = promisify(execFile);

export type PostgresServerHandle = {
  /** A new empty database's postgres:// URL. */
  database(): Promise<string>;
  stop(): Promise<void>;
};

const INSTALL_HINT =
  "PostgreSQL is not installed, but the database tests need it. Install it with " +
  "`apt-get update && apt-get install -y postgresql`, or set SKIP_POSTGRES_TESTS=1 to skip those tests.";

/** True when SKIP_POSTGRES_TESTS=1: the only case in which Postgres tests may be skipped. */
export const skipPostgresTests = process.env.SKIP_POSTGRES_TESTS === "1";

function findBinaries(): string | undefined {
  const roots = ["/usr/lib/postgresql"];
  for (const root of roots) {
    let versions: string[] = [];
    try {
      versions = readdirSync(root).sort((a, b) => Number(b) - Number(a));
    } catch {
      continue;
    }
    for (const version of versions) {
      const bin = join(root, version, "bin");
      try {
        accessSync(join(bin, "postgres"), constants.X_OK);
        return bin;
      } catch {
        // Try the next version.
      }
    }
  }
  return undefined;
}

export async function startPostgresServer(): Promise<PostgresServerHandle> {
  const bin = findBinaries();
  if (!bin) throw new Error(INSTALL_HINT);
  const asRoot = process.getuid?.() === 0;
  const directory = mkdtempSync(join(tmpdir(), "x402-postgres-"));
  chmodSync(directory, 0o700);
  const as = async (command: string, args: string[]) => {
    if (!asRoot) return run(join(bin, command), args);
    return run("runuser", ["-u", "postgres", "--", join(bin, command), ...args]);
  };
  if (asRoot) {
    const { stdout } = await run("id", ["-u", "postgres"]);
    const { stdout: group } = await run("id", ["-g", "postgres"]);
    chownSync(directory, Number(stdout.trim()), Number(group.trim()));
  }
  const data = join(directory, "data");
  await as("initdb", ["-D", data, "-A", "trust", "-U", "postgres", "--no-sync", "-E", "UTF8"]);
  const port = await findFreePort();
  const args = ["-D", data, "-p", String(port), "-k", directory, "-c", "listen_addresses=127.0.0.1", "-c", "fsync=off", "-c", "max_connections=200"];
  const server: ChildProcess = asRoot
    ? spawn("runuser", ["-u", "postgres", "--", join(bin, "postgres"), ...args], { stdio: "ignore" })
    : spawn(join(bin, "postgres"), args, { stdio: "ignore" });
  const exited = new Promise<void>((resolve) => server.once("exit", () => resolve()));
  const admin = `postgres://postgres@127.0.0.1:${port}/postgres`;
  const started = Date.now();
  for (;;) {
    const client = new pg.Client({ connectionString: admin });
    try {
      await client.connect();
      await client.end();
      break;
    } catch {
      await client.end().catch(() => undefined);
      if (Date.now() - started > 20_000 || server.exitCode !== null) {
        server.kill("SIGKILL");
        throw new Error("postgres did not start within 20 s");
      }
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
  let databases = 0;
  return {
    async database() {
      databases += 1;
      const name = `test_${process.pid}_${databases}`;
      const client = new pg.Client({ connectionString: admin });
      await client.connect();
      await client.query(`CREATE DATABASE ${name}`);
      await client.end();
      return `postgres://postgres@127.0.0.1:${port}/${name}`;
    },
    async stop() {
      if (server.exitCode === null) server.kill("SIGTERM");
      await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, 5_000))]);
      if (server.exitCode === null) server.kill("SIGKILL");
      rmSync(directory, { recursive: true, force: true });
    },
  };
}
