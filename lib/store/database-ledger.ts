import "server-only";
/**
 * The spending ledger in the database. Each reservation is a row; `reserve` calls a function
 * (migration 0009) that first takes a per-payer advisory lock, so concurrent reservations of
 * one payer (from any number of instances) are checked one after another against the daily
 * limit, and other payers are never blocked. Every call is one statement, so one round trip.
 * Every time that decides money (the window, expiries, commits) is the database's own clock;
 * `now` exists for tests of the window and is never passed in production.
 */
import { sql, type Kysely } from "kysely";
import type { Database } from "../db/schema";
import {
  type ClockOptions,
  type CommitOptions,
  type CommitResult,
  type DailySpending,
  type ReleaseResult,
  type ReserveInput,
  type ReserveResult,
  type SettledEntry,
  type SpendingLedger,
} from "./store-types";
import { DAILY_WINDOW_MS, RESERVATION_TTL_MS } from "../limits/budget-window";
import { checkAmount, checkPool, checkReservationId, checkScopeKey, checkTxHash, exceedsReservation, normalizePayer } from "../limits/store-input";
import { resolveNow } from "../clock";

export class DatabaseLedger implements SpendingLedger {
  constructor(private readonly db: Kysely<Database>) {}

  async reserve(input: ReserveInput): Promise<ReserveResult> {
    const payer = normalizePayer(input.payer);
    const reservationId = checkReservationId(input.reservationId);
    const amount = checkAmount(input.amount, "amount");
    const dailyLimit = checkAmount(input.dailyLimit, "dailyLimit");
    const now = testClock(input.now);
    const scope = input.scope ? { key: checkScopeKey(input.scope.key), dailyLimit: checkAmount(input.scope.dailyLimit, "scope.dailyLimit") } : undefined;
    const pool = checkPool(input);
    // One round trip: locks, the database's clock, sums and insert happen inside
    // reserve_in_budgets (migration 0009).
    const { rows } = await sql<ReserveRow>`
      SELECT r_outcome, r_settled::text AS r_settled, r_reserved::text AS r_reserved
      FROM reserve_in_budgets(${reservationId}, ${payer}, ${amount.toString()}, ${dailyLimit.toString()},
        ${scope?.key ?? null}, ${scope?.dailyLimit.toString() ?? null}, ${pool?.key ?? null}, ${pool?.dailyLimit.toString() ?? null},
        ${now}::bigint, ${DAILY_WINDOW_MS}, ${RESERVATION_TTL_MS})`.execute(this.db);
    const row = rows[0];
    if (!row) throw new Error("reserve_in_budgets returned no row");
    if (row.r_outcome === "conflict") throw new Error(`reservationId ${reservationId} was already used for a different payer, amount or scope`);
    if (row.r_outcome === "daily") return { ok: false, reason: "daily", spent: BigInt(row.r_settled), reserved: BigInt(row.r_reserved), dailyLimit };
    if (row.r_outcome === "scope" && scope)
      return { ok: false, reason: "scope", spent: BigInt(row.r_settled), reserved: BigInt(row.r_reserved), dailyLimit: scope.dailyLimit };
    if (row.r_outcome === "pool" && pool)
      return { ok: false, reason: "pool", spent: BigInt(row.r_settled), reserved: BigInt(row.r_reserved), dailyLimit: pool.dailyLimit };
    return { ok: true };
  }

  async commit(reservationId: string, options: CommitOptions): Promise<CommitResult> {
    checkReservationId(reservationId);
    const txHash = checkTxHash(options.txHash);
    const settled = options.amount === undefined ? undefined : checkAmount(options.amount, "amount").toString();
    // The row lock of the UPDATE decides between concurrent commits: the loser re-reads the
    // row, no longer finds it reserved, and reports what the winner recorded. The commit time
    // is the database's, like every time the reservation check compares. A metered payment
    // commits what it settled, never more than it reserved: the row's amount shrinks in the
    // same statement that commits it, so the difference is free the moment the commit is.
    let update = this.db
      .updateTable("budget_reservations")
      .set({ state: "committed", tx_hash: txHash, committed_at: databaseNow(options.now), ...(settled === undefined ? {} : { amount: settled }) })
      .where("reservation_id", "=", reservationId)
      .where("state", "=", "reserved");
    if (settled !== undefined) update = update.where("amount", ">=", settled);
    const committed = await update.returning(["amount", "committed_at"]).executeTakeFirst();
    if (committed) return { status: "committed", entry: { reservationId, amount: BigInt(committed.amount), txHash, at: Number(committed.committed_at) } };
    const row = await this.db.selectFrom("budget_reservations").selectAll().where("reservation_id", "=", reservationId).executeTakeFirst();
    if (!row) return { status: "not-found" };
    if (row.state === "reserved") throw new RangeError(exceedsReservation(reservationId));
    return { status: "already-committed", entry: { reservationId, amount: BigInt(row.amount), txHash: row.tx_hash ?? "", at: Number(row.committed_at) } };
  }

  async release(reservationId: string): Promise<ReleaseResult> {
    checkReservationId(reservationId);
    const deleted = await this.db
      .deleteFrom("budget_reservations")
      .where("reservation_id", "=", reservationId)
      .where("state", "=", "reserved")
      .executeTakeFirst();
    if (Number(deleted.numDeletedRows) > 0) return { status: "released" };
    const row = await this.db.selectFrom("budget_reservations").select("state").where("reservation_id", "=", reservationId).executeTakeFirst();
    return { status: row ? "already-committed" : "not-found" };
  }

  async spentToday(payer: string, options: ClockOptions = {}): Promise<DailySpending> {
    return sumFor(this.db, "payer", normalizePayer(payer), testClock(options.now));
  }

  async spentInScope(key: string, options: ClockOptions = {}): Promise<DailySpending> {
    return sumFor(this.db, "budget_key", checkScopeKey(key), testClock(options.now));
  }

  async entries(payer: string, options: ClockOptions = {}): Promise<SettledEntry[]> {
    const rows = await this.db
      .selectFrom("budget_reservations")
      .select(["reservation_id", "amount", "tx_hash", "committed_at"])
      .where("payer", "=", normalizePayer(payer))
      .where("state", "=", "committed")
      .where("committed_at", ">", sql<number>`${databaseNow(options.now)} - ${DAILY_WINDOW_MS}`)
      .orderBy("committed_at")
      .orderBy("reservation_id")
      .execute();
    return rows.map((row) => ({ reservationId: row.reservation_id, amount: BigInt(row.amount), txHash: row.tx_hash ?? "", at: Number(row.committed_at) }));
  }
}

type ReserveRow = { r_outcome: "ok" | "conflict" | "daily" | "scope" | "pool"; r_settled: string; r_reserved: string };

async function sumFor(db: Kysely<Database>, column: "payer" | "budget_key", value: string, now: number | null): Promise<DailySpending> {
  const { rows } = await sql<{ settled: string; reserved: string }>`
    WITH clock AS (SELECT coalesce(${now}::bigint, db_now_ms()) AS now_ms)
    SELECT
      coalesce(sum(b.amount) FILTER (WHERE b.state = 'committed' AND b.committed_at > clock.now_ms - ${DAILY_WINDOW_MS}), 0)::text AS settled,
      coalesce(sum(b.amount) FILTER (WHERE b.state = 'reserved' AND b.expires_at > clock.now_ms), 0)::text AS reserved
    FROM clock LEFT JOIN budget_reservations b ON ${sql.ref(`b.${column}`)} = ${value}
    GROUP BY clock.now_ms`.execute(db);
  const row = rows[0] ?? { settled: "0", reserved: "0" };
  return { settled: BigInt(row.settled), reserved: BigInt(row.reserved) };
}

/** A time a test passed (validated), or null: the database's clock decides. */
function testClock(now: number | undefined): number | null {
  return now === undefined ? null : resolveNow(now);
}

/** The database's time in milliseconds, or the time a test passed. */
function databaseNow(now: number | undefined) {
  return now === undefined ? sql<number>`db_now_ms()` : sql<number>`${resolveNow(now)}::bigint`;
}
