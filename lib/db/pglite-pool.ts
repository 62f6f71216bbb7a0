import "server-only";
/**
 * PGlite (Postgres compiled to WebAssembly, in this process) behind the small pool interface
 * that Kysely's Postgres dialect expects, so the same SQL runs on the embedded database and on
 * a real Postgres server. PGlite has one connection: a mutex hands it to one Kysely
 * "connection" at a time, so a transaction's statements never interleave with another's.
 */
import type { PGlite } from "@electric-sql/pglite";
import type { PostgresPool, PostgresPoolClient, PostgresQueryResult } from "kysely";

type Command = PostgresQueryResult<unknown>["command"];
const COMMANDS = new Set<Command>(["UPDATE", "DELETE", "INSERT", "SELECT", "MERGE"]);

/** `close` ends the database when the pool ends (by default PGlite's own close). */
export function pglitePool(database: PGlite, close: () => Promise<void> = () => database.close()): PostgresPool {
  let tail: Promise<void> = Promise.resolve();
  return {
    async connect(): Promise<PostgresPoolClient> {
      let release!: () => void;
      const turn = new Promise<void>((resolve) => {
        release = resolve;
      });
      const previous = tail;
      tail = previous.then(() => turn);
      await previous;
      let released = false;
      const client = {
        async query<R>(sql: string, parameters: ReadonlyArray<unknown>): Promise<PostgresQueryResult<R>> {
          const result = await database.query<R>(sql, [...parameters]);
          const word = sql.trimStart().split(/\s/, 1)[0]?.toUpperCase() as Command;
          return { command: COMMANDS.has(word) ? word : "SELECT", rowCount: result.affectedRows ?? result.rows.length, rows: result.rows };
        },
        release(): void {
          if (released) return;
          released = true;
          release();
        },
      };
      return client as PostgresPoolClient;
    },
    async end(): Promise<void> {
      await tail;
      await close();
    },
  };
}
