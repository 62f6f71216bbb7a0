/**
 * `npm run api-keys` end to end, as the operator runs it: a child process on an embedded
 * database in a temporary DATA_DIR. Also shows it refuses the folder while another process
 * (here: this one, standing in for the app) has it open.
 */
import { execFile } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { openDatabase } from "../lib/db/open-database";

const dataDir = mkdtempSync(path.join(tmpdir(), "x402-api-keys-cli-"));
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

type Run = { code: number; stdout: string; stderr: string };

function apiKeys(...args: string[]): Promise<Run> {
  // DATABASE_URL set empty wins over any .env of the developer's (empty counts as unset), so
  // this never touches a real database.
  const env = { ...process.env, DATA_DIR: dataDir, DATABASE_URL: "" };
  return new Promise((resolve) => {
    execFile(
      "npm",
      ["run", "-s", "api-keys", "--", ...args],
      { env, cwd: path.resolve(import.meta.dirname, ".."), timeout: 60_000 },
      (error, stdout, stderr) => {
        resolve({ code: error ? (typeof error.code === "number" ? error.code : -1) : 0, stdout, stderr });
      },
    );
  });
}

describe("npm run api-keys", () => {
  it("creates a key, lists it, revokes it, and lists it as revoked", async () => {
    const created = await apiKeys(
      "create",
      "--name",
      "ci",
      "--daily",
      "5",
      "--per-request",
      "1",
      "--per-payment",
      "0.5",
      "--expires",
      "30d",
      "--no-agent-wallet",
    );
    expect(created.code, created.stderr).toBe(0);
    expect(created.stdout).toMatch(/cannot be shown again/);
    const token = /^x402k_([0-9a-f]{16})_[A-Za-z0-9_-]{43}$/m.exec(created.stdout);
    expect(token).not.toBeNull();
    const id = token![1]!;

    const listed = await apiKeys("list");
    expect(listed.code, listed.stderr).toBe(0);
    expect(listed.stdout).toMatch(new RegExp(`^${id}  ci +0\\.5 +1 +5 +no +\\S+ \\S+ UTC +\\S+ \\S+ UTC +-$`, "m"));
    expect(listed.stdout).not.toContain(token![0]);

    expect(await apiKeys("revoke", id)).toMatchObject({ code: 0, stdout: `Revoked API key ${id}: it stops working at once.\n` });
    const after = await apiKeys("list");
    expect(after.stdout).toMatch(new RegExp(`^${id}  ci .* UTC$`, "m"));
    expect(after.stdout).not.toMatch(/ -\n?$/m);
    expect((await apiKeys("revoke", "0000000000000000")).code).toBe(1);
  }, 120_000);

  it("exits 2 on bad arguments, without opening the database", async () => {
    const run = await apiKeys("create", "--name", "ci");
    expect(run.code).toBe(2);
    expect(run.stderr).toContain("--per-payment is required");
    expect(run.stderr).toContain("Usage: npm run api-keys");
  }, 60_000);

  it("refuses, exiting 1, while another process has the embedded database open", async () => {
    const app = await openDatabase({ kind: "pglite", dataDir: path.join(dataDir, "pglite") });
    try {
      const run = await apiKeys("list");
      expect(run.code).toBe(1);
      expect(run.stderr).toContain(`is in use by process ${process.pid}`);
      expect(run.stderr).toContain("Stop the app first, or use DATABASE_URL");
    } finally {
      await app.close();
    }
    expect((await apiKeys("list")).code).toBe(0);
  }, 120_000);
});
