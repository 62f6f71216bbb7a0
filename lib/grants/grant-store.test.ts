/**
 * Both grant stores pass one contract: in memory, on the embedded database (PGlite) and on a
 * PostgreSQL server (numeric and bigint columns come back as strings there).
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { skipPostgresTests, startPostgresServer, type PostgresServerHandle } from "../../tests/support/postgres-server";
import { openDatabase, type AppDatabase } from "../db/open-database";
import { DAILY_WINDOW_MS } from "../limits/budget-window";
import { MAX_GRANT_SECONDS } from "./grant-bounds";
import { DatabaseGrantStore } from "./database-grant-store";
import { grantState, type GrantStore, type NewGrant } from "./grants";
import { MemoryGrantStore } from "./memory-grant-store";

vi.setConfig({ testTimeout: 30_000, hookTimeout: 60_000 });

const ALICE = "0x70997970C51812dc3A010C7d01b50e0d17dc79C8" as const;
const BOB = "0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC" as const;
const T0 = Date.UTC(2026, 10, 27, 12);
const HOUR = 60 * 60 * 1000;
const TX = `0x${"ab".repeat(32)}` as const;

function grantOf(wallet: `0x${string}`, nonce: bigint, now = T0): NewGrant {
  return { walletAddress: wallet, amount: 3_000n, expiresAt: now + HOUR, nonce, permitTransaction: TX, now };
}

function describeGrantStoreContract(name: string, open: () => Promise<GrantStore>): void {
  describe(`${name}: grant store contract`, () => {
    it("records a grant whose token names it, and keeps no token", async () => {
      const store = await open();
      const created = await store.create(grantOf(ALICE.toLowerCase() as `0x${string}`, 0n));
      if (created === "duplicate") throw new Error("unexpected duplicate");
      expect(created.grant).toEqual({
        id: expect.stringMatching(/^[0-9a-f]{16}$/),
        walletAddress: ALICE,
        amount: 3_000n,
        expiresAt: T0 + HOUR,
        nonce: 0n,
        permitTransaction: TX,
        createdAt: T0,
        revokedAt: null,
        replacedBy: null,
      });
      expect(created.token).toMatch(/^x402g_[0-9a-f]{16}_[A-Za-z0-9_-]{43}$/);
      expect(await store.check(created.token)).toEqual({ ok: true, grant: created.grant });
      expect(await store.get(created.grant.id)).toEqual(created.grant);
      // The same secret under another id, and a changed secret, name nothing.
      const wrongSecret = `${created.token.slice(0, -1)}${created.token.endsWith("A") ? "B" : "A"}`;
      expect(await store.check(wrongSecret)).toEqual({ ok: false, reason: "unknown" });
      expect(await store.check("x402k_0123456789abcdef_" + "A".repeat(43))).toEqual({ ok: false, reason: "malformed" });
    });

    it("refuses the same permit twice (one grant per wallet and nonce), and a new permit ends the earlier grants", async () => {
      const store = await open();
      const first = await store.create(grantOf(ALICE, 0n));
      expect(await store.create(grantOf(ALICE, 0n, T0 + 1))).toBe("duplicate");
      const bobs = await store.create(grantOf(BOB, 0n));
      const second = await store.create(grantOf(ALICE, 1n, T0 + 2));
      if (first === "duplicate" || second === "duplicate" || bobs === "duplicate") throw new Error("unexpected duplicate");
      const listed = await store.list(ALICE);
      expect(listed.map((grant) => [grant.id, grant.replacedBy])).toEqual([
        [second.grant.id, null],
        [first.grant.id, second.grant.id],
      ]);
      expect(grantState(listed[1]!, T0 + 3)).toBe("replaced");
      // Another wallet's grant is neither listed nor ended.
      expect(await store.get(bobs.grant.id)).toMatchObject({ replacedBy: null });
      expect((await store.list(BOB)).map((grant) => grant.id)).toEqual([bobs.grant.id]);
    });

    it("revokes only the wallet's own grant, once", async () => {
      const store = await open();
      const created = await store.create(grantOf(ALICE, 7n));
      if (created === "duplicate") throw new Error("unexpected duplicate");
      expect(await store.revoke(created.grant.id, BOB, T0 + 5)).toBe("not-found");
      expect(await store.revoke("not-an-id", ALICE)).toBe("not-found");
      const results = await Promise.all([store.revoke(created.grant.id, ALICE, T0 + 5), store.revoke(created.grant.id, ALICE, T0 + 6)]);
      expect(results.sort()).toEqual(["already-revoked", "revoked"]);
      const revoked = await store.get(created.grant.id);
      expect(revoked?.revokedAt).toBe(T0 + 5);
      expect(grantState(revoked!, T0 + 10)).toBe("revoked");
    });
  });
}

describe("grant bounds", () => {
  it("a grant never outlives the ledger's window, in which its spending is counted", () => {
    expect(MAX_GRANT_SECONDS * 1000).toBeLessThanOrEqual(DAILY_WINDOW_MS);
  });
});

describeGrantStoreContract("memory", async () => new MemoryGrantStore());

const root = mkdtempSync(path.join(tmpdir(), "x402-grants-"));
let pglite: Promise<AppDatabase> | undefined;
afterAll(async () => {
  await (await pglite)?.close();
  rmSync(root, { recursive: true, force: true });
});
describeGrantStoreContract("database (PGlite)", async () => {
  pglite ??= openDatabase({ kind: "pglite", dataDir: path.join(root, "contract") });
  const database = await pglite;
  await database.db.deleteFrom("grants").execute();
  return new DatabaseGrantStore(database.db);
});

describe.skipIf(skipPostgresTests)("PostgreSQL", () => {
  let server: PostgresServerHandle | undefined;
  let database: Promise<AppDatabase> | undefined;
  beforeAll(async () => {
    server = await startPostgresServer();
  }, 60_000);
  afterAll(async () => {
    await (await database)?.close();
    await server?.stop();
  });
  describeGrantStoreContract("database (PostgreSQL)", async () => {
    if (!server) throw new Error("postgres did not start (see the beforeAll error)");
    database ??= openDatabase({ kind: "postgres", url: await server.database() });
    const opened = await database;
    await opened.db.deleteFrom("grants").execute();
    return new DatabaseGrantStore(opened.db);
  });
});
