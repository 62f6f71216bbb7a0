import { PGlite } from "@electric-sql/pglite";
import { afterEach, describe, expect, it } from "vitest";
import { startPgliteWorker, type EmbeddedConnection } from "./pglite-worker";

let connection: EmbeddedConnection | undefined;

afterEach(async () => {
  await connection?.close();
  connection = undefined;
});

describe("PGlite in a worker thread", () => {
  it("answers with the same values PGlite answers in this thread", async () => {
    connection = await startPgliteWorker({ startParams: PGlite.defaultStartParams });
    const inThread = new PGlite();
    try {
      const sql = "SELECT $1::text AS t, $2::bigint AS b, 12345678901234567890::numeric AS n, '{\"a\":[1,2]}'::jsonb AS j, NULL::text AS z";
      const parameters = ["x'y", "9007199254740993"];
      const expected = await inThread.query(sql, parameters);
      const got = await connection.query(sql, parameters);
      expect(got.rows).toEqual(expected.rows);
    } finally {
      await inThread.close();
    }
  });

  it("runs statements in the order they were sent, and counts affected rows", async () => {
    connection = await startPgliteWorker({ startParams: PGlite.defaultStartParams });
    await connection.query("CREATE TABLE t (n int)", []);
    const inserts = Array.from({ length: 50 }, (_, index) => connection!.query("INSERT INTO t VALUES ($1)", [index]));
    const results = await Promise.all(inserts);
    expect(results.every((result) => result.affectedRows === 1)).toBe(true);
    const { rows } = await connection.query<{ n: number }>("SELECT n FROM t", []);
    expect(rows.map((row) => row.n)).toEqual(Array.from({ length: 50 }, (_, index) => index));
  });

  it("rejects a failing statement with Postgres's error code and keeps serving", async () => {
    connection = await startPgliteWorker({ startParams: PGlite.defaultStartParams });
    await expect(connection.query("SELEC 1", [])).rejects.toMatchObject({ code: "42601" });
    await expect(connection.query("SELECT 1 / 0", [])).rejects.toMatchObject({ code: "22012", message: expect.stringContaining("division by zero") });
    expect((await connection.query<{ one: number }>("SELECT 1 AS one", [])).rows).toEqual([{ one: 1 }]);
  });

  it("refuses statements after it was closed", async () => {
    const closing = await startPgliteWorker({ startParams: PGlite.defaultStartParams });
    await closing.close();
    await expect(closing.query("SELECT 1", [])).rejects.toThrow(/stopped/);
  });
});
