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
        floatReturned: 0n,
        sweptAt: null,
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

    it("selects for the sweep each wallet's newest grant that ended and is not swept, earliest expiry first, up to the limit", async () => {
      const store = await open();
      const created = async (wallet: `0x${string}`, nonce: bigint, now: number) => {
        const made = await store.create(grantOf(wallet, nonce, now));
        if (made === "duplicate") throw new Error("unexpected duplicate");
        return made.grant;
      };
      const replaced = await created(ALICE, 20n, T0);
      const alices = await created(ALICE, 21n, T0 + 10); // expires at T0 + HOUR + 10
      const bobs = await created(BOB, 20n, T0); // expires at T0 + HOUR
      const ids = async (now: number, limit = 10) => (await store.endedUnswept(limit, now)).map((grant) => grant.id);

      // Active: nothing. Expired: both newest grants, never the replaced one.
      expect(await ids(T0 + HOUR - 1)).toEqual([]);
      expect(await ids(T0 + HOUR)).toEqual([bobs.id]);
      expect(await ids(T0 + HOUR + 10)).toEqual([bobs.id, alices.id]);
      expect(await ids(T0 + HOUR + 10, 1)).toEqual([bobs.id]);
      expect(replaced.id).not.toBe(alices.id);
      // A revoked grant has ended whatever its expiry.
      expect(await store.revoke(alices.id, ALICE, T0 + 20)).toBe("revoked");
      expect(await ids(T0 + 30)).toEqual([alices.id]);

      // Claimed: not selected while the claim holds; swept: never again.
      expect(await store.claimFloat(alices.id, HOUR, "one")).toBe("claimed");
      expect(await ids(T0 + HOUR + 10)).toEqual([bobs.id]);
      await store.releaseFloat(alices.id, "one", { returned: 7n, swept: false });
      expect(await ids(T0 + HOUR + 10)).toEqual([bobs.id, alices.id]);
      expect(await store.claimFloat(alices.id, HOUR, "two")).toBe("claimed");
      await store.releaseFloat(alices.id, "two", { returned: 5n, swept: true });
      expect(await ids(T0 + HOUR + 10)).toEqual([bobs.id]);
      expect(await store.get(alices.id)).toMatchObject({ floatReturned: 12n, sweptAt: expect.any(Number) });
      expect(await store.claimFloat(alices.id, HOUR, "three")).toBe("held");
    });

    it("without a time passed, the store's own clock (the database's) says what has ended", async () => {
      const store = await open();
      const past = await store.create(grantOf(ALICE, 40n, Date.now() - 2 * HOUR));
      const live = await store.create(grantOf(BOB, 40n, Date.now()));
      if (past === "duplicate" || live === "duplicate") throw new Error("unexpected duplicate");
      expect((await store.endedUnswept(10)).map((grant) => grant.id)).toEqual([past.grant.id]);
    });

    it("gives the float claim to one caller at a time; a stranger's release neither frees nor sweeps it", async () => {
      const store = await open();
      const made = await store.create(grantOf(BOB, 30n));
      if (made === "duplicate") throw new Error("unexpected duplicate");
      const id = made.grant.id;
      const ended = T0 + HOUR;
      const claims = await Promise.all(["a", "b", "c"].map((holder) => store.claimFloat(id, HOUR, holder, ended)));
      expect([...claims].sort()).toEqual(["claimed", "held", "held"]);
      const holder = ["a", "b", "c"][claims.indexOf("claimed")]!;
      await store.releaseFloat(id, "someone-else", { returned: 3n, swept: true });
      expect(await store.get(id)).toMatchObject({ floatReturned: 3n, sweptAt: null });
      expect(await store.claimFloat(id, HOUR, "d", ended)).toBe("held");
      await store.releaseFloat(id, holder, { returned: 0n, swept: false });
      // A claim that lapsed (a holder that died) can be taken again.
      expect(await store.claimFloat(id, 0, "e", ended)).toBe("claimed");
      expect(await store.claimFloat(id, HOUR, "f", ended)).toBe("claimed");
    });

    it("claims only a grant ended on the store's clock, whatever the caller's clock says", async () => {
      const store = await open();
      const created = async (wallet: `0x${string}`, nonce: bigint, now: number) => {
        const made = await store.create(grantOf(wallet, nonce, now));
        if (made === "duplicate") throw new Error("unexpected duplicate");
        return made.grant;
      };
      // Active on the store's own clock (the database's, when no clock is passed): it expires an
      // hour from now, whatever clock the asking instance keeps.
      const live = await created(ALICE, 50n, Date.now());
      expect(await store.claimFloat(live.id, HOUR, "ahead")).toBe("kept");
      // Active at the store clock a test passes, though the caller's instance thinks it expired.
      const expiring = await created(BOB, 50n, T0);
      expect(await store.claimFloat(expiring.id, HOUR, "early", T0 + HOUR - 1)).toBe("kept");
      expect(await store.get(expiring.id)).toMatchObject({ sweptAt: null });
      // Expired on the store's clock: claimed once.
      expect(await store.claimFloat(expiring.id, HOUR, "one", T0 + HOUR)).toBe("claimed");
      expect(await store.claimFloat(expiring.id, HOUR, "two", T0 + HOUR)).toBe("held");
      // Revoked: ended before its expiry, claimed once.
      expect(await store.revoke(live.id, ALICE)).toBe("revoked");
      expect(await store.claimFloat(live.id, HOUR, "three")).toBe("claimed");
      expect(await store.claimFloat(live.id, HOUR, "four")).toBe("held");
      // Replaced: its float is the newer grant's, never claimed, expired or revoked.
      const older = await created(BOB, 51n, T0);
      await created(BOB, 52n, T0 + 1);
      expect(await store.claimFloat(older.id, HOUR, "five", T0 + 2 * HOUR)).toBe("kept");
      expect(await store.revoke(older.id, BOB, T0 + 2)).toBe("revoked");
      expect(await store.claimFloat(older.id, HOUR, "six", T0 + 2 * HOUR)).toBe("kept");
      expect(await store.claimFloat(older.id, HOUR, "seven")).toBe("kept");
      // Unknown: nothing to claim.
      expect(await store.claimFloat("0123456789abcdef", HOUR, "eight")).toBe("kept");
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
