import "server-only";
/**
 * The spending ledger in Redis, shared by every instance. `reserve`, `commit` and `release`
 * are single Lua scripts (redis-scripts.ts), so concurrent reservations for one payer from any
 * number of instances can never together exceed the daily limit. Every time they compare is
 * Redis's own clock (`TIME`), never the calling instance's; `now` exists for tests.
 */
import { z } from "zod";
import type { RedisConnection } from "./redis-connection";
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
import { checkAmount, checkReservationId, checkTxHash, exceedsReservation, normalizePayer } from "../limits/store-input";
import { resolveNow } from "../clock";

/**
 * How long Redis keeps a payer's keys after the last write: longer than the window and the
 * reservation TTL, so expiry never drops an entry that still counts.
 */
const KEY_TTL_MS = DAILY_WINDOW_MS + RESERVATION_TTL_MS;

const BaseUnits = z
  .string()
  .regex(/^\d+$/)
  .transform((value) => BigInt(value));
const EpochMs = z
  .string()
  .regex(/^\d+$/)
  .transform((value) => Number(value));

const ReserveReply = z.union([z.tuple([z.literal("ok")]), z.tuple([z.literal("conflict")]), z.tuple([z.literal("daily"), BaseUnits, BaseUnits])]);
const CommitReply = z.union([
  z.tuple([z.literal("not-found")]),
  z.tuple([z.literal("exceeds")]),
  z.tuple([z.enum(["committed", "already-committed"]), BaseUnits, z.string(), EpochMs]),
]);
const ReleaseReply = z.enum(["released", "not-found", "already-committed"]);
const SpentTodayReply = z.tuple([BaseUnits, BaseUnits]);
const StoredEntry = z.object({ state: z.literal("committed"), amount: BaseUnits, txHash: z.string(), at: EpochMs });
const EntriesReply = z.array(z.string());

/**
 * Budgets per named caller are kept only by the database ledger. The app always has one (the
 * embedded database when DATABASE_URL is unset), so a Redis ledger holds budgets only in a
 * store made without a database, which the app never makes; it refuses scoped reservations
 * rather than ignore the caller's budget.
 */
const SCOPES_NEED_A_DATABASE = "budgets per caller (scoped reservations) need the database ledger";

/**
 * @example
 * const ledger = new RedisLedger(connection, "x402:");
 * const result = await ledger.reserve({ payer, reservationId: "r1", amount: 10_000n, dailyLimit: 1_000_000n });
 */
export class RedisLedger implements SpendingLedger {
  constructor(
    private readonly connection: RedisConnection,
    private readonly keyPrefix: string,
  ) {}

  async reserve(input: ReserveInput): Promise<ReserveResult> {
    if (input.scope) throw new TypeError(SCOPES_NEED_A_DATABASE);
    const payer = normalizePayer(input.payer);
    const reservationId = checkReservationId(input.reservationId);
    const amount = checkAmount(input.amount, "amount");
    const dailyLimit = checkAmount(input.dailyLimit, "dailyLimit");
    const reply = ReserveReply.parse(
      await this.connection.script("x402LedgerReserve", this.ledgerKeys(reservationId, payer), [
        reservationId,
        payer,
        amount.toString(),
        dailyLimit.toString(),
        testClock(input.now),
        String(DAILY_WINDOW_MS),
        String(RESERVATION_TTL_MS),
        String(KEY_TTL_MS),
      ]),
    );
    switch (reply[0]) {
      case "ok":
        return { ok: true };
      case "conflict":
        throw new Error(`reservationId ${reservationId} was already used for a different payer or amount`);
      case "daily":
        return { ok: false, reason: "daily", spent: reply[1], reserved: reply[2], dailyLimit };
    }
  }

  async commit(reservationId: string, options: CommitOptions): Promise<CommitResult> {
    checkReservationId(reservationId);
    const txHash = checkTxHash(options.txHash);
    const settled = options.amount === undefined ? "" : checkAmount(options.amount, "amount").toString();
    const now = testClock(options.now);
    const payer = await this.payerOf(reservationId);
    if (!payer) return { status: "not-found" };
    const reply = CommitReply.parse(
      await this.connection.script("x402LedgerCommit", this.ledgerKeys(reservationId, payer), [reservationId, txHash, now, String(KEY_TTL_MS), settled]),
    );
    if (reply[0] === "not-found") return { status: "not-found" };
    if (reply[0] === "exceeds") throw new RangeError(exceedsReservation(reservationId));
    const [status, amount, storedTxHash, at] = reply;
    return { status, entry: { reservationId, amount, txHash: storedTxHash, at } };
  }

  async release(reservationId: string): Promise<ReleaseResult> {
    checkReservationId(reservationId);
    const payer = await this.payerOf(reservationId);
    if (!payer) return { status: "not-found" };
    const reply = ReleaseReply.parse(await this.connection.script("x402LedgerRelease", this.ledgerKeys(reservationId, payer), [reservationId]));
    return { status: reply };
  }

  /** Budgets per caller live beside the journal, in the database; see SCOPES_NEED_A_DATABASE. */
  async spentInScope(): Promise<DailySpending> {
    throw new TypeError(SCOPES_NEED_A_DATABASE);
  }

  async spentToday(payer: string, options: ClockOptions = {}): Promise<DailySpending> {
    const normalized = normalizePayer(payer);
    const keys = this.payerKeys(normalized);
    const [settled, reserved] = SpentTodayReply.parse(
      await this.connection.script("x402LedgerSpentToday", [keys.reserved, keys.settled, keys.entries], [testClock(options.now), String(DAILY_WINDOW_MS)]),
    );
    return { settled, reserved };
  }

  async entries(payer: string, options: ClockOptions = {}): Promise<SettledEntry[]> {
    const keys = this.payerKeys(normalizePayer(payer));
    const flat = EntriesReply.parse(
      await this.connection.script("x402LedgerEntries", [keys.settled, keys.entries], [testClock(options.now), String(DAILY_WINDOW_MS)]),
    );
    const result: SettledEntry[] = [];
    for (let index = 0; index + 1 < flat.length; index += 2) {
      const stored = StoredEntry.parse(JSON.parse(flat[index + 1] as string));
      result.push({ reservationId: flat[index] as string, amount: stored.amount, txHash: stored.txHash, at: stored.at });
    }
    return result;
  }

  /** The payer a reservation belongs to; the mapping never changes once written. */
  private async payerOf(reservationId: string): Promise<string | null> {
    return this.connection.run((client) => client.get(this.reservationKey(reservationId)));
  }

  private ledgerKeys(reservationId: string, payer: string): string[] {
    const keys = this.payerKeys(payer);
    return [this.reservationKey(reservationId), keys.reserved, keys.settled, keys.entries];
  }

  private reservationKey(reservationId: string): string {
    return `${this.keyPrefix}ledger:reservation:${reservationId}`;
  }

  private payerKeys(payer: string) {
    const base = `${this.keyPrefix}ledger:payer:${payer}`;
    return { reserved: `${base}:reserved`, settled: `${base}:settled`, entries: `${base}:entries` };
  }
}

/** A time a test passed, as the scripts take it; empty means Redis's own clock decides. */
function testClock(now: number | undefined): string {
  return now === undefined ? "" : String(resolveNow(now));
}
