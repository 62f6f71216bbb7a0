import "server-only";
/**
 * The spending ledger in the database. Each reservation is a row; `reserve` runs in a
 * transaction that first takes a per-payer advisory lock, so concurrent reservations of one
 * payer (from any number of instances) are checked one after another against the daily limit,
 * and other payers are never blocked.
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
import { checkAmount, checkReservationId, checkTxHash, normalizePayer, resolveNow } from "./store-input";

export class DatabaseLedger implements SpendingLedger {
  constructor(private readonly db: Kysely<Database>) {}

  async reserve(input: ReserveInput): Promise<ReserveResult> {
    const payer = normalizePayer(input.payer);
    const reservationId = checkReservationId(input.reservationId);
    const amount = checkAmount(input.amount, "amount");
    const dailyLimit = checkAmount(input.dailyLimit, "dailyLimit");
    const now = resolveNow(input.now);
    return this.db.transaction().execute(async (trx) => {
      await sql`SELECT pg_advisory_xact_lock(hashtext(${`ledger:${payer}`}))`.execute(trx);
      const existing = await trx.selectFrom("budget_reservations").select(["payer", "amount"]).where("reservation_id", "=", reservationId).executeTakeFirst();
      if (existing) {
        if (existing.payer !== payer || BigInt(existing.amount) !== amount) {
          throw new Error(`reservationId ${reservationId} was already used for a different payer or amount`);
        }
        return { ok: true } as const;
      }
      const { settled, reserved } = await sumFor(trx, payer, now);
      if (settled + reserved + amount > dailyLimit) return { ok: false, reason: "daily", spent: settled, reserved, dailyLimit } as const;
      await trx
        .insertInto("budget_reservations")
        .values({ reservation_id: reservationId, payer, amount: amount.toString(), state: "reserved", tx_hash: null, expires_at: now + RESERVATION_TTL_MS, committed_at: null })
        .execute();
      return { ok: true } as const;
    });
  }

  async commit(reservationId: string, options: { txHash: string; now?: number }): Promise<CommitResult> {
    checkReservationId(reservationId);
    const txHash = checkTxHash(options.txHash);
    const now = resolveNow(options.now);
    return this.db.transaction().execute(async (trx) => {
      const row = await trx.selectFrom("budget_reservations").selectAll().where("reservation_id", "=", reservationId).forUpdate().executeTakeFirst();
      if (!row) return { status: "not-found" } as const;
      if (row.state === "committed") {
        return { status: "already-committed", entry: { reservationId, amount: BigInt(row.amount), txHash: row.tx_hash ?? "", at: Number(row.committed_at) } } as const;
      }
      await trx.updateTable("budget_reservations").set({ state: "committed", tx_hash: txHash, committed_at: now }).where("reservation_id", "=", reservationId).execute();
      return { status: "committed", entry: { reservationId, amount: BigInt(row.amount), txHash, at: now } } as const;
    });
  }

  async release(reservationId: string): Promise<ReleaseResult> {
    checkReservationId(reservationId);
    const deleted = await this.db.deleteFrom("budget_reservations").where("reservation_id", "=", reservationId).where("state", "=", "reserved").executeTakeFirst();
    if (Number(deleted.numDeletedRows) > 0) return { status: "released" };
    const row = await this.db.selectFrom("budget_reservations").select("state").where("reservation_id", "=", reservationId).executeTakeFirst();
    return { status: row ? "already-committed" : "not-found" };
  }

  async spentToday(payer: string, options: ClockOptions = {}): Promise<DailySpending> {
    return sumFor(this.db, normalizePayer(payer), resolveNow(options.now));
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

async function sumFor(db: Kysely<Database>, payer: string, now: number): Promise<DailySpending> {
  const row = await db
    .selectFrom("budget_reservations")
    .select([
      sql<string>`coalesce(sum(amount) filter (where state = 'committed' and committed_at > ${now - DAILY_WINDOW_MS} and committed_at <= ${now}), 0)::text`.as("settled"),
      sql<string>`coalesce(sum(amount) filter (where state = 'reserved' and expires_at > ${now}), 0)::text`.as("reserved"),
    ])
    .where("payer", "=", payer)
    .executeTakeFirstOrThrow();
  return { settled: BigInt(row.settled), reserved: BigInt(row.reserved) };
}
