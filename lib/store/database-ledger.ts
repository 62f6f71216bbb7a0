import "server-only";
/**
 * The spending ledger in the database. Each reservation is a row; `reserve` calls a function
 * (migration 0002) that first takes a per-payer advisory lock, so concurrent reservations of
 * one payer (from any number of instances) are checked one after another against the daily
 * limit, and other payers are never blocked. Every call is one statement, so one round trip.
 */
import { sql, type Kysely } from "kysely";
import type { Database } from "../db/schema";
import {
  DAILY_WINDOW_MS,
  RESERVATION_TTL_MS,
  type ClockOptions,
  type CommitResult,
  type DailySpending,
  type ReleaseResult,
  type ReserveInput,
  type ReserveResult,
  type SettledEntry,
  type SpendingLedger,
} from "./store-types";
import { checkAmount, checkPool, checkReservationId, checkScopeKey, checkTxHash, normalizePayer } from "./store-input";
import { resolveNow } from "../clock";

export class DatabaseLedger implements SpendingLedger {
  constructor(private readonly db: Kysely<Database>) {}

  async reserve(input: ReserveInput): Promise<ReserveResult> {
    const payer = normalizePayer(input.payer);
    const reservationId = checkReservationId(input.reservationId);
    const amount = checkAmount(input.amount, "amount");
    const dailyLimit = checkAmount(input.dailyLimit, "dailyLimit");
    const now = resolveNow(input.now);
    const scope = input.scope ? { key: checkScopeKey(input.scope.key), dailyLimit: checkAmount(input.scope.dailyLimit, "scope.dailyLimit") } : undefined;
    const pool = checkPool(input);
    // One round trip: locks, sums and insert happen inside reserve_budget (migration 0002),
    // reserve_scoped_budget (0004) when a named caller's budget is counted too, or
    // reserve_pooled_budget (0008) when that caller also shares a pool.
    const { rows } = pool && scope
      ? await sql<ReserveRow>`
          SELECT r_outcome, r_settled::text AS r_settled, r_reserved::text AS r_reserved
          FROM reserve_pooled_budget(${reservationId}, ${payer}, ${amount.toString()}, ${dailyLimit.toString()}, ${scope.key}, ${scope.dailyLimit.toString()},
            ${pool.key}, ${pool.dailyLimit.toString()}, ${now}, ${DAILY_WINDOW_MS}, ${RESERVATION_TTL_MS})`.execute(this.db)
      : scope
      ? await sql<ReserveRow>`
          SELECT r_outcome, r_settled::text AS r_settled, r_reserved::text AS r_reserved
          FROM reserve_scoped_budget(${reservationId}, ${payer}, ${amount.toString()}, ${dailyLimit.toString()}, ${scope.key}, ${scope.dailyLimit.toString()}, ${now}, ${DAILY_WINDOW_MS}, ${RESERVATION_TTL_MS})`.execute(this.db)
      : await sql<ReserveRow>`
          SELECT r_outcome, r_settled::text AS r_settled, r_reserved::text AS r_reserved
          FROM reserve_budget(${reservationId}, ${payer}, ${amount.toString()}, ${dailyLimit.toString()}, ${now}, ${DAILY_WINDOW_MS}, ${RESERVATION_TTL_MS})`.execute(this.db);
    const row = rows[0];
    if (!row) throw new Error("reserve_budget returned no row");
    if (row.r_outcome === "conflict") throw new Error(`reservationId ${reservationId} was already used for a different payer, amount or scope`);
    if (row.r_outcome === "daily") return { ok: false, reason: "daily", spent: BigInt(row.r_settled), reserved: BigInt(row.r_reserved), dailyLimit };
    if (row.r_outcome === "scope" && scope) return { ok: false, reason: "scope", spent: BigInt(row.r_settled), reserved: BigInt(row.r_reserved), dailyLimit: scope.dailyLimit };
    if (row.r_outcome === "pool" && pool) return { ok: false, reason: "pool", spent: BigInt(row.r_settled), reserved: BigInt(row.r_reserved), dailyLimit: pool.dailyLimit };
    return { ok: true };
  }

  async commit(reservationId: string, options: { txHash: string; now?: number }): Promise<CommitResult> {
    checkReservationId(reservationId);
    const txHash = checkTxHash(options.txHash);
    const now = resolveNow(options.now);
    // The row lock of the UPDATE decides between concurrent commits: the loser re-reads the
    // row, no longer finds it reserved, and reports what the winner recorded.
    const committed = await this.db
      .updateTable("budget_reservations")
      .set({ state: "committed", tx_hash: txHash, committed_at: now })
      .where("reservation_id", "=", reservationId)
      .where("state", "=", "reserved")
      .returning("amount")
      .executeTakeFirst();
    if (committed) return { status: "committed", entry: { reservationId, amount: BigInt(committed.amount), txHash, at: now } };
    const row = await this.db.selectFrom("budget_reservations").selectAll().where("reservation_id", "=", reservationId).executeTakeFirst();
    if (!row) return { status: "not-found" };
    return { status: "already-committed", entry: { reservationId, amount: BigInt(row.amount), txHash: row.tx_hash ?? "", at: Number(row.committed_at) } };
  }

  async release(reservationId: string): Promise<ReleaseResult> {
    checkReservationId(reservationId);
    const deleted = await this.db.deleteFrom("budget_reservations").where("reservation_id", "=", reservationId).where("state", "=", "reserved").executeTakeFirst();
    if (Number(deleted.numDeletedRows) > 0) return { status: "released" };
    const row = await this.db.selectFrom("budget_reservations").select("state").where("reservation_id", "=", reservationId).executeTakeFirst();
    return { status: row ? "already-committed" : "not-found" };
  }

  async spentToday(payer: string, options: ClockOptions = {}): Promise<DailySpending> {
    return sumFor(this.db, "payer", normalizePayer(payer), resolveNow(options.now));
  }

  async spentInScope(key: string, options: ClockOptions = {}): Promise<DailySpending> {
    return sumFor(this.db, "budget_key", checkScopeKey(key), resolveNow(options.now));
  }

  async entries(payer: string, options: ClockOptions = {}): Promise<SettledEntry[]> {
    const now = resolveNow(options.now);
    const rows = await this.db
      .selectFrom("budget_reservations")
      .select(["reservation_id", "amount", "tx_hash", "committed_at"])
      .where("payer", "=", normalizePayer(payer))
      .where("state", "=", "committed")
      .where("committed_at", ">", now - DAILY_WINDOW_MS)
      .where("committed_at", "<=", now)
      .orderBy("committed_at")
      .orderBy("reservation_id")
      .execute();
    return rows.map((row) => ({ reservationId: row.reservation_id, amount: BigInt(row.amount), txHash: row.tx_hash ?? "", at: Number(row.committed_at) }));
  }
}

type ReserveRow = { r_outcome: "ok" | "conflict" | "daily" | "scope" | "pool"; r_settled: string; r_reserved: string };

async function sumFor(db: Kysely<Database>, column: "payer" | "budget_key", value: string, now: number): Promise<DailySpending> {
  const row = await db
    .selectFrom("budget_reservations")
    .select([
      sql<string>`coalesce(sum(amount) filter (where state = 'committed' and committed_at > ${now - DAILY_WINDOW_MS} and committed_at <= ${now}), 0)::text`.as("settled"),
      sql<string>`coalesce(sum(amount) filter (where state = 'reserved' and expires_at > ${now}), 0)::text`.as("reserved"),
    ])
    .where(column, "=", value)
    .executeTakeFirstOrThrow();
  return { settled: BigInt(row.settled), reserved: BigInt(row.reserved) };
}
