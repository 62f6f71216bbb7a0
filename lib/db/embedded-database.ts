import "server-only";
/**
 * Opens the embedded database (PGlite) with a footprint fit for a server that also serves
 * pages: its folder is created in a short-lived child process, and Postgres gets small memory
 * settings. Measured on a bare Node process: opening a new folder in-process (Postgres's
 * initdb) leaves about 650 MB resident, because WebAssembly memory never shrinks; opening an
 * existing folder takes about 350 MB with Postgres's default 128 MB of shared buffers, about
 * 220 MB with 16 MB, and 12 MB less again with 4 MB. The tables here are small and the
 * operating system caches the files, so the smaller buffers cost nothing measurable (0.28 ms of
 * CPU per journal upsert with 16, 4 or 2 MB).
 *
 * PGlite's WebAssembly is compiled by V8's baseline compiler (Liftoff) only. By default V8
 * recompiles hot functions with its optimizing compiler (TurboFan) while the server runs; for
 * Postgres that costs about 50 MB of resident code and compile time on the first few thousand
 * statements, and buys nothing afterwards (measured on a bare Node process, 15,000 journal
 * upserts: 0.28 ms of CPU per statement either way once warm; 0.65 ms against 0.39 ms over
 * the first 3,000; 230 MB against 175 MB resident). The flag is process-wide and applies to
 * modules compiled after it is set, which is why it is set here, before PGlite compiles.
 */
import { execFile } from "node:child_process";
import { existsSync, mkdirSync } from "node:fs";
import path from "node:path";
import { promisify } from "node:util";
import { setFlagsFromString } from "node:v8";
import { PGlite } from "@electric-sql/pglite";
import { lockFolder } from "./folder-lock";

const MEMORY_SETTINGS = {
  shared_buffers: "4MB",
  wal_buffers: "512kB",
  temp_buffers: "1MB",
  work_mem: "2MB",
  maintenance_work_mem: "8MB",
};

/** The child's whole program: create the cluster in the folder it is given, then exit. */
const CREATE_FOLDER = `const { PGlite } = await import("@electric-sql/pglite");
const database = new PGlite(process.argv[1]);
await database.waitReady;
await database.close();`;

const CREATE_TIMEOUT_MS = 120_000;

/** The open database, and how to close it (which also gives up the folder's lock). */
export type EmbeddedDatabase = { database: PGlite; close(): Promise<void> };

/**
 * `dataDir` absent: an in-memory database that ends with the process (tests). A folder is
 * locked for this process first (see folder-lock.ts): a second process must not open it.
 * @throws AppError "unavailable:store" when another process has the folder open.
 */
export async function openEmbeddedDatabase(dataDir?: string): Promise<EmbeddedDatabase> {
  const lock = dataDir ? lockFolder(dataDir) : undefined;
  try {
    if (dataDir) await createFolderApart(dataDir);
    setFlagsFromString("--liftoff-only");
    const startParams = [...PGlite.defaultStartParams, ...Object.entries(MEMORY_SETTINGS).flatMap(([name, value]) => ["-c", `${name}=${value}`])];
    const database = new PGlite({ dataDir, startParams });
    await database.waitReady;
    const close = async () => {
      try {
        await database.close();
      } finally {
        lock?.release();
      }
    };
    return { database, close };
  } catch (error) {
    lock?.release();
    throw error;
  }
}

async function createFolderApart(dataDir: string): Promise<void> {
  // PGlite creates its own folder but not the folders above it.
  mkdirSync(dataDir, { recursive: true });
  if (existsSync(path.join(dataDir, "PG_VERSION"))) return;
  try {
    // Resolved from the working directory, where `next start`, `npm run dev` and the tests run.
    await promisify(execFile)(process.execPath, ["--input-type=module", "-e", CREATE_FOLDER, dataDir], { timeout: CREATE_TIMEOUT_MS, cwd: process.cwd() });
  } catch {
    // The folder is then created in this process by the open that follows: it costs the memory
    // described above, never correctness.
  }
}
