/** Every evidence store passes the same contract: in memory, on PGlite and on PostgreSQL. */
import { sql } from "kysely";
import { afterAll, beforeAll, describe, vi } from "vitest";
import { describeEvidenceStoreContract } from "../../tests/support/evidence-store-contract";
import { skipPostgresTests, startPostgresServer, type PostgresServerHandle } from "../../tests/support/postgres-server";
import { MemoryJournal } from "../journal/memory-journal";
import { createDatabaseStore, lazyDatabase, type LazyDatabase } from "../store/create-database-store";
import { MemoryEvidenceStore } from "./memory-evidence-store";

vi.setConfig({ testTimeout: 30_000, hookTimeout: 60_000 });

describeEvidenceStoreContract("memory", async (count) => {
  const journal = new MemoryJournal();
  const store = new MemoryEvidenceStore(journal);
  return { stores: Array.from({ length: count }, () => store), journal, close: async () => {} };
});

async function onDatabase(database: LazyDatabase, count: number) {
  const stores = Array.from({ length: count }, () => createDatabaseStore(database));
  return {
    stores: stores.map((store) => store.evidence),
    journal: stores[0]!.journal,
    // The database stamps a status change itself (migration 0013): time passing is moved there.
    backdate: async (paymentId: string, ms: number) => {
      await sql`UPDATE payments SET status_at = status_at - ${ms} WHERE id = ${paymentId}`.execute((await database.open()).db);
    },
    close: () => database.close(),
  };
}

describeEvidenceStoreContract("database (PGlite)", (count) => onDatabase(lazyDatabase({ kind: "pglite" }), count));

describe.skipIf(skipPostgresTests)("PostgreSQL", () => {
  let server: PostgresServerHandle | undefined;
  beforeAll(async () => {
    server = await startPostgresServer();
  }, 60_000);
  afterAll(async () => {
    await server?.stop();
  });
  describeEvidenceStoreContract("database (PostgreSQL)", async (count) => {
    if (!server) throw new Error("postgres did not start (see the beforeAll error)");
    return onDatabase(lazyDatabase({ kind: "postgres", url: await server.database() }), count);
  });
});
