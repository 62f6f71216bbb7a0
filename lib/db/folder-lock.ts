import "server-only";
/**
 * One process at a time in an embedded database folder. PGlite is Postgres in single-user
 * mode inside this process: it takes no lock a second process would see, and a second
 * process opening the same folder starts without complaint, each keeping its own buffers
 * over the same files. Tried with PGlite 0.5 (two processes inserting into one table, both
 * open): each saw only its own rows, and after both closed a committed row was gone. So the
 * server and the operator's scripts take this lock first, and the second one refuses.
 *
 * The lock is a file beside the folder (`<folder>.lock`, not inside it, where Postgres owns
 * every file), created exclusively, naming the holder's process id and host; the holder
 * touches it every few seconds. A holder that died without releasing it (crash, kill -9)
 * leaves a stale file, taken over at once when its process is visibly gone, and otherwise
 * once the file has not been touched for STALE_MS: that covers what a process id cannot tell
 * (another host or container on a shared folder, an id reused after a reboot). Two processes
 * that find one stale file at the same instant could both take it over; that needs a crash
 * and two starts within microseconds.
 */
import { mkdirSync, readFileSync, rmSync, statSync, utimesSync, writeFileSync } from "node:fs";
import { hostname } from "node:os";
import path from "node:path";
import { z } from "zod";
import { AppError } from "../errors";

export type FolderLock = { file: string; release(): void };

const Holder = z.object({ pid: z.number().int().positive(), host: z.string(), since: z.number() });
type Holder = z.infer<typeof Holder>;
type Found = { holder: Holder | undefined; touchedAt: number };

export const HEARTBEAT_MS = 5_000;
/** Six missed heartbeats: far beyond any pause of a healthy process's event loop. */
export const STALE_MS = 30_000;

/**
 * Locks held by this process: a second open of one folder in one process is refused too. Kept
 * on globalThis so a module copy reloaded by Next.js dev sees the locks the first copy took.
 */
const HELD_KEY = Symbol.for("x402-agent.folder-locks");
const heldHere: Map<string, NodeJS.Timeout> = ((globalThis as { [HELD_KEY]?: Map<string, NodeJS.Timeout> })[HELD_KEY] ??= new Map());

/**
 * Takes the lock of `dataDir` for this process.
 * @throws AppError "unavailable:store" naming the holder, when another live process has it.
 * @example
 * const lock = lockFolder(".data/pglite");
 * try { … } finally { lock.release(); }
 */
export function lockFolder(dataDir: string): FolderLock {
  const file = `${path.resolve(dataDir)}.lock`;
  if (heldHere.has(file)) throw inUse(dataDir, file, self());
  mkdirSync(path.dirname(file), { recursive: true });
  // Two tries: the second follows the removal of a stale lock.
  for (let attempt = 0; attempt < 2; attempt += 1) {
    try {
      writeFileSync(file, JSON.stringify(self()), { flag: "wx" });
      // unref: the heartbeat never keeps a process alive that has nothing else to do.
      heldHere.set(file, setInterval(() => touch(file), HEARTBEAT_MS).unref());
      return { file, release: () => release(file) };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
    }
    const found = readLock(file);
    if (found && isHeld(found)) throw inUse(dataDir, file, found.holder);
    rmSync(file, { force: true });
  }
  throw inUse(dataDir, file, undefined);
}

function self(): Holder {
  return { pid: process.pid, host: hostname(), since: Date.now() };
}

function isOurs(found: Found | undefined): boolean {
  return found?.holder?.pid === process.pid && found.holder.host === hostname();
}

function touch(file: string): void {
  try {
    if (!isOurs(readLock(file))) return;
    const now = new Date();
    utimesSync(file, now, now);
  } catch {
    // A missed beat is harmless: the next one comes in HEARTBEAT_MS, far inside STALE_MS.
  }
}

function release(file: string): void {
  const heartbeat = heldHere.get(file);
  if (!heartbeat) return;
  clearInterval(heartbeat);
  heldHere.delete(file);
  // Removed only if it is still ours: never another process's lock.
  if (isOurs(readLock(file))) rmSync(file, { force: true });
}

/** The lock file's holder (undefined while unreadable: maybe being written) and last touch; undefined when gone. */
function readLock(file: string): Found | undefined {
  let touchedAt: number;
  try {
    touchedAt = statSync(file).mtimeMs;
  } catch {
    return undefined;
  }
  try {
    const parsed = Holder.safeParse(JSON.parse(readFileSync(file, "utf8")));
    return { holder: parsed.success ? parsed.data : undefined, touchedAt };
  } catch {
    return { holder: undefined, touchedAt };
  }
}

function isHeld({ holder, touchedAt }: Found): boolean {
  if (Date.now() - touchedAt > STALE_MS) return false;
  // Unreadable but fresh: another process may be writing it this instant.
  if (!holder) return true;
  // Another host's process ids mean nothing here (a shared folder): its heartbeat decides.
  if (holder.host !== hostname()) return true;
  // Our own id, yet not held here: a previous process that had the same id (a container's
  // first process restarts with the same id every time).
  if (holder.pid === process.pid) return false;
  try {
    process.kill(holder.pid, 0);
    return true;
  } catch (error) {
    // EPERM: the process exists but belongs to another user.
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

function inUse(dataDir: string, file: string, holder: Holder | undefined): AppError {
  const who = holder ? `process ${holder.pid} on ${holder.host} since ${new Date(holder.since).toISOString()}` : "another process";
  return new AppError("unavailable:store", {
    details:
      `the embedded database in ${dataDir} is in use by ${who}; it allows one process at a time. ` +
      `Stop the app first, or use DATABASE_URL (a Postgres server allows many). ` +
      `If nothing is running, delete ${file} (it also lapses ${STALE_MS / 1000} s after its holder stops).`,
    retryAfterSeconds: 5,
  });
}
