import { spawn } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, utimesSync, writeFileSync } from "node:fs";
import { hostname, tmpdir } from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";
import { AppError } from "../errors";
import { HEARTBEAT_MS, lockFolder, STALE_MS } from "./folder-lock";

const roots: string[] = [];
afterEach(() => {
  for (const root of roots.splice(0)) rmSync(root, { recursive: true, force: true });
});

function folder(): string {
  const root = mkdtempSync(path.join(tmpdir(), "x402-lock-"));
  roots.push(root);
  mkdirSync(path.join(root, "data"));
  return path.join(root, "data", "pglite");
}

/** Makes the lock file look untouched for `ms`. */
function age(file: string, ms: number): void {
  const then = new Date(Date.now() - ms);
  utimesSync(file, then, then);
}

function refusal(dataDir: string): AppError {
  try {
    lockFolder(dataDir);
  } catch (error) {
    if (AppError.isInstance(error)) return error;
    throw error;
  }
  throw new Error("expected the lock to be refused");
}

/** A process id that is certainly gone: a child that has exited and been reaped. */
async function deadPid(): Promise<number> {
  const child = spawn(process.execPath, ["-e", ""], { stdio: "ignore" });
  await new Promise((resolve) => child.on("exit", resolve));
  return child.pid!;
}

describe("lockFolder", () => {
  it("writes the holder beside the folder and removes it on release", () => {
    const dataDir = folder();
    const lock = lockFolder(dataDir);
    expect(lock.file).toBe(`${path.resolve(dataDir)}.lock`);
    expect(JSON.parse(readFileSync(lock.file, "utf8"))).toMatchObject({ pid: process.pid, host: hostname() });
    lock.release();
    lock.release();
    expect(existsSync(lock.file)).toBe(false);
  });

  it("refuses a second open in the same process until the first is released", () => {
    const dataDir = folder();
    const lock = lockFolder(dataDir);
    expect(refusal(dataDir)).toMatchObject({ code: "unavailable:store" });
    lock.release();
    lockFolder(dataDir).release();
  });

  it("refuses while another live process holds it, saying what to do", () => {
    const dataDir = folder();
    writeFileSync(`${path.resolve(dataDir)}.lock`, JSON.stringify({ pid: process.ppid, host: hostname(), since: Date.UTC(2026, 0, 1) }));
    const { details } = refusal(dataDir);
    expect(details).toContain(`in use by process ${process.ppid} on ${hostname()} since 2026-01-01T00:00:00.000Z`);
    expect(details).toContain("Stop the app first, or use DATABASE_URL");
    expect(details).toContain(`delete ${path.resolve(dataDir)}.lock`);
  });

  it("goes by the heartbeat for a holder on another host, whose process cannot be seen", () => {
    const dataDir = folder();
    const file = `${path.resolve(dataDir)}.lock`;
    writeFileSync(file, JSON.stringify({ pid: 1, host: `not-${hostname()}`, since: 0 }));
    expect(refusal(dataDir).details).toContain(`on not-${hostname()}`);
    age(file, STALE_MS + 1000);
    lockFolder(dataDir).release();
  });

  it("takes over a lock left untouched for STALE_MS even when its process id is in use (reused)", () => {
    const dataDir = folder();
    const file = `${path.resolve(dataDir)}.lock`;
    writeFileSync(file, JSON.stringify({ pid: process.ppid, host: hostname(), since: 0 }));
    age(file, STALE_MS - 5000);
    expect(refusal(dataDir).code).toBe("unavailable:store");
    age(file, STALE_MS + 1000);
    lockFolder(dataDir).release();
  });

  it("touches the lock while held, so it never looks stale, and stops when released", () => {
    vi.useFakeTimers({ toFake: ["setInterval", "clearInterval"] });
    try {
      const dataDir = folder();
      const lock = lockFolder(dataDir);
      age(lock.file, STALE_MS + 1000);
      vi.advanceTimersByTime(HEARTBEAT_MS);
      expect(Date.now() - statSync(lock.file).mtimeMs).toBeLessThan(STALE_MS / 2);
      expect(vi.getTimerCount()).toBe(1);
      lock.release();
      expect(vi.getTimerCount()).toBe(0);
    } finally {
      vi.useRealTimers();
    }
  });

  it("takes over the lock of a process that died, and of an earlier process with our own id", async () => {
    const dataDir = folder();
    const file = `${path.resolve(dataDir)}.lock`;
    writeFileSync(file, JSON.stringify({ pid: await deadPid(), host: hostname(), since: 0 }));
    lockFolder(dataDir).release();
    writeFileSync(file, JSON.stringify({ pid: process.pid, host: hostname(), since: 0 }));
    const lock = lockFolder(dataDir);
    expect(JSON.parse(readFileSync(file, "utf8")).since).toBeGreaterThan(0);
    lock.release();
  });

  it("treats an unreadable lock as being written for a few seconds, then as stale", () => {
    const dataDir = folder();
    const file = `${path.resolve(dataDir)}.lock`;
    writeFileSync(file, "");
    expect(refusal(dataDir).details).toContain("in use by another process");
    age(file, STALE_MS + 1000);
    lockFolder(dataDir).release();
  });

  it("does not remove a lock that another process took over", () => {
    const dataDir = folder();
    const lock = lockFolder(dataDir);
    const other = JSON.stringify({ pid: process.ppid, host: hostname(), since: 1 });
    writeFileSync(lock.file, other);
    lock.release();
    expect(readFileSync(lock.file, "utf8")).toBe(other);
  });
});
