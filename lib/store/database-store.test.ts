/**
 * The store on the database passes the same contract as memory and Redis, on the embedded
 * database (PGlite) and on a real PostgreSQL server, and its journal keeps an audit trail.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { skipPostgresTests, startPostgresServer, type PostgresServerHandle } from "../../tests/support/postgres-server";
import { sql } from "kysely";
import { createDatabaseStore, lazyDatabase } from "./create-database-store";
import { MemoryRateLimiter } from "./memory-rate-limiter";
import { describeBudgetScopeContract } from "../../tests/support/budget-scope-contract";
import { describeStoreContract } from "../../tests/support/store-contract";
import type { Store } from "./store-types";

const PAYER = "0x52908400098527886E0F7030069857D2E4169EE7";

// Every test opens a fresh database: PGlite compiles its WebAssembly and runs the migrations
// first, which takes seconds on a loaded 2-core machine.
vi.setConfig({ testTimeout: 30_000, hookTimeout: 60_000 });

/**
 * `count` stores over one fresh database, as instances of one deployment would be. Rate limits
 * are not kept in the database (Redis shares them across instances), so these share one.
 */
function storesOn(open: () => ReturnType<typeof lazyDatabase>) {
  return (count: number): Store[] => {
    const database = open();
    const rateLimiter = new MemoryRateLimiter();
    return Array.from({ length: count }, () => createDatabaseStore(database, rateLimiter));
  };
}

describeStoreContract(
  "database (PGlite)",
  storesOn(() => lazyDatabase({ kind: "pglite" })),
);
describeBudgetScopeContract(
  "database (PGlite)",
  storesOn(() => lazyDatabase({ kind: "pglite" })),
);

function describeJournal(name: string, open: () => Promise<ReturnType<typeof lazyDatabase>>) {
  describe(`${name}: payment journal`, () => {
    it("appends every step and keeps the latest state with every field known so far", async () => {
      const database = await open();
      const { journal } = createDatabaseStore(database);
      try {
        await journal.record({
          id: "pay_1",
          status: "quoted",
          at: 1_000,
          payer: PAYER,
          payerKind: "agent",
          nonce: `0x${"1".repeat(64)}`,
          validBefore: 2_000n,
          amount: 15_000n,
          service: "Weather",
          resource: "https://w.example/today",
          method: "GET",
          requestKey: "key:a",
          conversationId: "c1",
        });
        await journal.record({ id: "pay_1", status: "signing", at: 1_001 });
        await journal.record({ id: "pay_1", status: "confirmed", at: 1_002, txHash: `0x${"ab".repeat(32)}` });
        expect(await journal.get("pay_1")).toMatchObject({
          status: "confirmed",
          payer: PAYER.toLowerCase(),
          amount: 15_000n,
          validBefore: 2_000n,
          service: "Weather",
          txHash: `0x${"ab".repeat(32)}`,
          createdAt: 1_000,
          updatedAt: 1_002,
        });
        expect((await journal.events("pay_1")).map((event) => event.status)).toEqual(["quoted", "signing", "confirmed"]);
        expect(await journal.unsettled(10)).toEqual([]);
        await journal.record({
          id: "pay_2",
          status: "pending",
          at: 1_003,
          payer: PAYER,
          payerKind: "user",
          nonce: `0x${"2".repeat(64)}`,
          validBefore: 3_000n,
          service: "News",
        });
        expect((await journal.unsettled(10)).map((payment) => payment.id)).toEqual(["pay_2"]);
        expect((await journal.history({ payer: PAYER, limit: 10 })).map((payment) => payment.id)).toEqual(["pay_2", "pay_1"]);
        expect((await journal.history({ payer: PAYER, service: "Weather", limit: 10 })).map((payment) => payment.id)).toEqual(["pay_1"]);
        expect((await journal.history({ payer: PAYER, before: 1_003, limit: 10 })).map((payment) => payment.id)).toEqual(["pay_1"]);
        expect(await journal.history({ payer: `0x${"9".repeat(40)}`, limit: 10 })).toEqual([]);
        expect((await journal.ofRequest("key:a", 10)).map((payment) => payment.id)).toEqual(["pay_1"]);
        expect(await journal.ofRequest("key:other", 10)).toEqual([]);
      } finally {
        await database.close();
      }
    });

    it("keeps a metered payment's scheme and ceiling from its quote, and its settled amount and flag from its settlement", async () => {
      const database = await open();
      const { journal } = createDatabaseStore(database);
      try {
        await journal.record({
          id: "pay_u",
          status: "quoted",
          at: 1_000,
          payer: PAYER,
          payerKind: "agent",
          nonce: `0x${"4".repeat(64)}`,
          validBefore: 2_000n,
          amount: 50_000n,
          scheme: "upto",
          ceiling: 50_000n,
        });
        expect(await journal.get("pay_u")).toMatchObject({ scheme: "upto", ceiling: 50_000n, amount: 50_000n });
        await journal.record({ id: "pay_u", status: "confirmed", at: 1_001, txHash: `0x${"ab".repeat(32)}`, amount: 20_000n, settlementFlag: "over-settled" });
        expect(await journal.get("pay_u")).toMatchObject({
          status: "confirmed",
          scheme: "upto",
          ceiling: 50_000n,
          amount: 20_000n,
          settlementFlag: "over-settled",
        });
        expect((await journal.events("pay_u")).at(-1)?.details).toMatchObject({ amount: "20000", settlementFlag: "over-settled" });
        // An exact payment has none of the three.
        await journal.record({ id: "pay_e", status: "quoted", at: 1_002, payer: PAYER, payerKind: "agent", amount: 15_000n });
        const exact = await journal.get("pay_e");
        expect([exact?.scheme, exact?.ceiling, exact?.settlementFlag]).toEqual([undefined, undefined, undefined]);
        // The previous release's call (without the three) still records a step.
        const { db } = await database.open();
        await sql`SELECT record_payment_step(p_id => 'pay_old', p_status => 'quoted', p_payer => ${PAYER.toLowerCase()}, p_payer_kind => 'agent', p_payer_kind_given => true,
          p_nonce => NULL, p_request_key => NULL, p_conversation_id => NULL, p_service => NULL, p_resource => NULL, p_method => NULL, p_amount => 1,
          p_asset => NULL, p_network => NULL, p_pay_to => NULL, p_valid_after => NULL, p_valid_before => NULL, p_reason => NULL, p_message => NULL,
          p_tx_hash => NULL, p_receipt => NULL, p_at => 1, p_details => '{}'::jsonb)`.execute(db);
        expect(await journal.get("pay_old")).toMatchObject({ status: "quoted", amount: 1n });
      } finally {
        await database.close();
      }
    });
  });
}

describeJournal("PGlite", async () => lazyDatabase({ kind: "pglite" }));

describe("the journal's answer to 'has this payer paid this payee before'", () => {
  it("is no until a payment to that payee settles, and a yes is remembered without asking the database again", async () => {
    const database = lazyDatabase({ kind: "pglite" });
    const { journal } = createDatabaseStore(database);
    const payee = `0x${"Ab".repeat(20)}`;
    try {
      await journal.record({ id: "pay_1", status: "signing", at: 1, payer: PAYER, payerKind: "agent", payTo: payee });
      expect(await journal.hasPaid(PAYER, payee)).toBe(false);
      await journal.record({ id: "pay_1", status: "confirmed", at: 2 });
      expect(await journal.hasPaid(PAYER.toLowerCase(), payee.toUpperCase().replace("0X", "0x"))).toBe(true);
      expect(await journal.hasPaid(PAYER, `0x${"cd".repeat(20)}`)).toBe(false);
      // Remembered: the yes stands even once the row is gone (a settled payment never unsettles).
      await sql`DELETE FROM payment_events`.execute((await database.open()).db);
      await sql`DELETE FROM payments`.execute((await database.open()).db);
      expect(await journal.hasPaid(PAYER, payee)).toBe(true);
    } finally {
      await database.close();
    }
  });
});

describe("the embedded database on disk", () => {
  it("creates its folder, and keeps budgets, keys and payments across a restart", async () => {
    const dataDir = path.join(mkdtempSync(path.join(tmpdir(), "x402-pglite-")), "nested", "pglite");
    try {
      const first = createDatabaseStore(lazyDatabase({ kind: "pglite", dataDir }));
      expect(await first.ledger.reserve({ payer: PAYER, reservationId: "r1", amount: 5n, dailyLimit: 10n })).toEqual({ ok: true });
      expect(await first.idempotency.claim("intent", 900)).toEqual({ claimed: true });
      await first.journal.record({ id: "pay_1", status: "signing", at: 1, payer: PAYER, payerKind: "agent", nonce: `0x${"3".repeat(64)}`, validBefore: 10n });
      await first.close();

      const second = createDatabaseStore(lazyDatabase({ kind: "pglite", dataDir }));
      expect(await second.ledger.spentToday(PAYER)).toEqual({ settled: 0n, reserved: 5n });
      expect(await second.idempotency.claim("intent", 900)).toMatchObject({ claimed: false, record: null });
      expect((await second.journal.unsettled(10)).map((payment) => payment.id)).toEqual(["pay_1"]);
      await second.close();
    } finally {
      rmSync(path.dirname(path.dirname(dataDir)), { recursive: true, force: true });
    }
  });
});

// Skipped only on explicit request; a missing PostgreSQL fails beforeAll with install advice.
describe.skipIf(skipPostgresTests)("PostgreSQL", () => {
  let server: PostgresServerHandle | undefined;
  beforeAll(async () => {
    server = await startPostgresServer();
  }, 60_000);
  afterAll(async () => {
    await server?.stop();
  });
  const fresh = async () => {
    if (!server) throw new Error("postgres did not start (see the beforeAll error)");
    return lazyDatabase({ kind: "postgres", url: await server.database() });
  };

  describeStoreContract("database (PostgreSQL)", async (count) => {
    const database = await fresh();
    const rateLimiter = new MemoryRateLimiter();
    return Array.from({ length: count }, () => createDatabaseStore(database, rateLimiter));
  });
  describeBudgetScopeContract("database (PostgreSQL)", async (count) => {
    const database = await fresh();
    const rateLimiter = new MemoryRateLimiter();
    return Array.from({ length: count }, () => createDatabaseStore(database, rateLimiter));
  });
  describeJournal("PostgreSQL", fresh);
});
