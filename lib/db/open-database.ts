import "server-only";
/**
 * Opens the database and brings its schema up to date: Postgres when a URL is given
 * (`DATABASE_URL`: Neon, Vercel Postgres, any server), otherwise PGlite persisted in a folder
 * (`DATA_DIR`, `.data/` by default), or in memory for tests. The same SQL runs on both.
 */
import { Kysely, Migrator, PostgresDialect } from "kysely";
import pg from "pg";
import { AppError } from "../errors";
import { openEmbeddedDatabase } from "./embedded-database";
import { migrationProvider } from "./migrations/index";
import { pglitePool } from "./pglite-pool";
import type { Database } from "./schema";

export type DatabaseKind = "postgres" | "pglite";

export type OpenDatabaseOptions =
  | { kind: "postgres"; url: string; maxConnections?: number }
  /** `dataDir` absent: an in-memory database that ends with the process (tests). */
  | { kind: "pglite"; dataDir?: string };

export type AppDatabase = { kind: DatabaseKind; db: Kysely<Database>; close(): Promise<void> };

export async function openDatabase(options: OpenDatabaseOptions): Promise<AppDatabase> {
  const pool =
    options.kind === "postgres"
      ? new pg.Pool({ connectionString: options.url, max: options.maxConnections ?? 10, connectionTimeoutMillis: 5_000 })
      : await openEmbedded(options.dataDir).then(({ database, close }) => pglitePool(database, close));
  const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
  try {
    const { error, results } = await new Migrator({ db, provider: migrationProvider }).migrateToLatest();
    if (error) {
      const failed = results?.find((result) => result.status === "Error")?.migrationName;
      throw new AppError("unavailable:store", { details: `database migration ${failed ?? ""} failed: ${String(error)}`, cause: error });
    }
  } catch (error) {
    await db.destroy().catch(() => undefined);
    throw AppError.isInstance(error) ? error : new AppError("unavailable:store", { details: `database unavailable: ${String(error)}`, cause: error });
  }
  return { kind: options.kind, db, close: () => db.destroy() };
}

async function openEmbedded(dataDir: string | undefined) {
  try {
    return await openEmbeddedDatabase(dataDir);
  } catch (error) {
    // The folder's lock already says what is wrong and what to do.
    if (AppError.isInstance(error)) throw error;
    throw new AppError("unavailable:store", { details: `embedded database unavailable: ${String(error)}`, cause: error });
  }
}
