/**
 * Both key stores pass one contract: in memory, on the embedded database (PGlite) in a
 * temporary folder (reopened from disk to show keys outlive a restart), and on a PostgreSQL
 * server, which returns numeric and bigint columns as strings.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { describeApiKeyStoreContract } from "../../tests/support/api-key-store-contract";
import { skipPostgresTests, startPostgresServer, type PostgresServerHandle } from "../../tests/support/postgres-server";
import { Kysely, PostgresDialect, type PostgresPool } from "kysely";
import { openDatabase, type AppDatabase } from "../db/open-database";
import type { Database } from "../db/schema";
import { createDatabaseStore, lazyDatabase } from "../store/create-database-store";
import { DatabaseApiKeyStore } from "./database-api-key-store";
import { MemoryApiKeyStore } from "./memory-api-key-store";

// PGlite compiles its WebAssembly and runs the migrations on every open: seconds on a slow machine.
vi.setConfig({ testTimeout: 30_000, hookTimeout: 60_000 });

const root = mkdtempSync(path.join(tmpdir(), "x402-api-keys-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));

describeApiKeyStoreContract("memory", async () => {
  const store = new MemoryApiKeyStore();
  return { store, stored: async () => store.storedForTests(), close: async () => {} };
});

// One database in a temporary folder for the whole suite (an open costs seconds); every test
// starts from an empty table.
let shared: Promise<AppDatabase> | undefined;
afterAll(async () => {
  await (await shared)?.close();
});
describeApiKeyStoreContract("database (PGlite)", async () => {
  shared ??= openDatabase({ kind: "pglite", dataDir: path.join(root, "contract") });
  const database = await shared;
  await database.db.deleteFrom("api_keys").execute();
  return {
    store: new DatabaseApiKeyStore(database.db),
    stored: () => database.db.selectFrom("api_keys").selectAll().execute(),
    close: async () => {},
  };
});

describe("the database key store", () => {
  it("answers a malformed token without touching the database", async () => {
    let connections = 0;
    const pool: PostgresPool = {
      connect: async () => {
        connections += 1;
        throw new Error("no database here");
      },
      end: async () => {},
    };
    const store = new DatabaseApiKeyStore(new Kysely<Database>({ dialect: new PostgresDialect({ pool }) }));
    for (const token of ["", "x402k_", "x".repeat(1_000_000), "x402k_0123456789abcdef_\u{1F511}"]) {
      expect(await store.check(token)).toEqual({ ok: false, reason: "malformed" });
    }
    expect(connections).toBe(0);
    await expect(store.check(`x402k_0123456789abcdef_${"A".repeat(43)}`)).rejects.toThrow("no database here");
    expect(connections).toBe(1);
  });
});

describe("api keys on the store", () => {
  it("live in the database: a key made before a restart checks out after it", async () => {
    const dataDir = path.join(root, "restart");
    const first = createDatabaseStore(lazyDatabase({ kind: "pglite", dataDir }));
    const { key, token } = await first.apiKeys.create({ name: "ci", budget: { perPayment: 1n, perRequest: 2n, daily: 3n } });
    await first.close();
    const second = createDatabaseStore(lazyDatabase({ kind: "pglite", dataDir }));
    try {
      expect(await second.apiKeys.check(token)).toEqual({ ok: true, key });
      expect(await second.apiKeys.list()).toEqual([key]);
    } finally {
      await second.close();
    }
  });
});

// Skipped only on explicit request, as in lib/store/database-store.test.ts.
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

  describeApiKeyStoreContract("database (PostgreSQL)", async () => {
    if (!server) throw new Error("postgres did not start (see the beforeAll error)");
    const url = await server.database();
    database ??= openDatabase({ kind: "postgres", url });
    const opened = await database;
    await opened.db.deleteFrom("api_keys").execute();
    return { store: new DatabaseApiKeyStore(opened.db), stored: () => opened.db.selectFrom("api_keys").selectAll().execute(), close: async () => {} };
  });
});
