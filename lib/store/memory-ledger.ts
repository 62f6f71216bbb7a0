/**
 * The spending ledger in process memory, for a single instance (development, tests, one
 * server). JavaScript runs each call's bookkeeping without interleaving (no `await` inside
 * the critical sections), which makes `reserve` atomic here as the Lua script is in Redis.
 */
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

type Reservation = (
  { state: "reserved"; payer: string; amount: bigint; expiresAt: number } | { state: "committed"; payer: string; amount: bigint; txHash: string; at: number }
) & { scope?: string; pool?: string };

/** Every this many reservations, payers that went quiet are swept too, so memory stays bounded. */
const SWEEP_EVERY = 1000;

/**
 * @example
 * const ledger = new MemoryLedger();
 * await ledger.reserve({ payer, reservationId: "r1", amount: 10_000n, dailyLimit: 1_000_000n });
 * await ledger.commit("r1", { txHash });
 */
export class MemoryLedger implements SpendingLedger {
  private readonly reservations = new Map<string, Reservation>();
  private readonly idsByPayer = new Map<string, Set<string>>();
  private reservesSinceSweep = 0;

  async reserve(input: ReserveInput): Promise<ReserveResult> {
    const payer = normalizePayer(input.payer);
    const reservationId = checkReservationId(input.reservationId);
    const amount = checkAmount(input.amount, "amount");
    const dailyLimit = checkAmount(input.dailyLimit, "dailyLimit");
    const now = resolveNow(input.now);
    const scope = input.scope ? { key: checkScopeKey(input.scope.key), dailyLimit: checkAmount(input.scope.dailyLimit, "scope.dailyLimit") } : undefined;
    const pool = checkPool(input);

    this.maybeSweepAll(now);
    this.trim(payer, now);

    const existing = this.reservations.get(reservationId);
    if (existing) {
      if (existing.payer !== payer || existing.amount !== amount || existing.scope !== scope?.key || existing.pool !== pool?.key) {
        throw new Error(`reservationId ${reservationId} was already used for a different payer, amount or scope`);
      }
      return { ok: true };
    }

    const { settled, reserved } = this.sum(payer, now);
    if (settled + reserved + amount > dailyLimit) {
      return { ok: false, reason: "daily", spent: settled, reserved, dailyLimit };
    }
    if (scope) {
      const inScope = this.scopeSum(scope.key, now);
      if (inScope.settled + inScope.reserved + amount > scope.dailyLimit) {
        return { ok: false, reason: "scope", spent: inScope.settled, reserved: inScope.reserved, dailyLimit: scope.dailyLimit };
      }
    }
    if (pool) {
      const inPool = sumOf(
        [...this.reservations.values()].filter((reservation) => reservation.pool === pool.key),
        now,
      );
      if (inPool.settled + inPool.reserved + amount > pool.dailyLimit) {
        return { ok: false, reason: "pool", spent: inPool.settled, reserved: inPool.reserved, dailyLimit: pool.dailyLimit };
      }
    }
    this.reservations.set(reservationId, {
      state: "reserved",
      payer,
      amount,
      expiresAt: now + RESERVATION_TTL_MS,
      ...(scope ? { scope: scope.key } : {}),
      ...(pool ? { pool: pool.key } : {}),
    });
    this.idsOf(payer).add(reservationId);
    return { ok: true };
  }

  async commit(reservationId: string, options: CommitOptions): Promise<CommitResult> {
    checkReservationId(reservationId);
    const txHash = checkTxHash(options.txHash);
    const settledAmount = options.amount === undefined ? undefined : checkAmount(options.amount, "amount");
    const now = resolveNow(options.now);
    const reservation = this.reservations.get(reservationId);
    if (!reservation) return { status: "not-found" };
    if (reservation.state === "committed") {
      return { status: "already-committed", entry: toEntry(reservationId, reservation) };
    }
    if (settledAmount !== undefined && settledAmount > reservation.amount) throw new RangeError(exceedsReservation(reservationId));
    const committed: Reservation = {
      state: "committed",
      payer: reservation.payer,
      amount: settledAmount ?? reservation.amount,
      txHash,
      at: now,
      ...(reservation.scope ? { scope: reservation.scope } : {}),
      ...(reservation.pool ? { pool: reservation.pool } : {}),
    };
    this.reservations.set(reservationId, committed);
    return { status: "committed", entry: toEntry(reservationId, committed) };
  }

  async release(reservationId: string): Promise<ReleaseResult> {
    checkReservationId(reservationId);
    const reservation = this.reservations.get(reservationId);
    if (!reservation) return { status: "not-found" };
    if (reservation.state === "committed") return { status: "already-committed" };
    this.forget(reservationId, reservation.payer);
    return { status: "released" };
  }

  async spentToday(payer: string, options: ClockOptions = {}): Promise<DailySpending> {
    return this.sum(normalizePayer(payer), resolveNow(options.now));
  }

  async spentInScope(key: string, options: ClockOptions = {}): Promise<DailySpending> {
    return this.scopeSum(checkScopeKey(key), resolveNow(options.now));
  }

  async entries(payer: string, options: ClockOptions = {}): Promise<SettledEntry[]> {
    const normalized = normalizePayer(payer);
    const cutoff = resolveNow(options.now) - DAILY_WINDOW_MS;
    const result: SettledEntry[] = [];
    for (const id of this.idsByPayer.get(normalized) ?? []) {
      const reservation = this.reservations.get(id);
      if (reservation?.state === "committed" && reservation.at > cutoff) result.push(toEntry(id, reservation));
    }
    return result.sort((left, right) => left.at - right.at || left.reservationId.localeCompare(right.reservationId));
  }

  /** Settled entries in the window and reservations not yet past their safety TTL. */
  private sum(payer: string, now: number): DailySpending {
    return sumOf(
      [...(this.idsByPayer.get(payer) ?? [])].map((id) => this.reservations.get(id)),
      now,
    );
  }

  /**
   * The same for a scope. A scan of every reservation: this ledger serves one process in
   * development and tests, where that is a few thousand at most.
   */
  private scopeSum(key: string, now: number): DailySpending {
    return sumOf(
      [...this.reservations.values()].filter((reservation) => reservation.scope === key),
      now,
    );
  }

  /** Forgets settled entries that left the window and reservations past their safety TTL. */
  private trim(payer: string, now: number): void {
    const cutoff = now - DAILY_WINDOW_MS;
    for (const id of this.idsByPayer.get(payer) ?? []) {
      const reservation = this.reservations.get(id);
      const stale = !reservation || (reservation.state === "committed" ? reservation.at <= cutoff : reservation.expiresAt <= now);
      if (stale) this.forget(id, payer);
    }
  }

  private maybeSweepAll(now: number): void {
    this.reservesSinceSweep += 1;
    if (this.reservesSinceSweep < SWEEP_EVERY) return;
    this.reservesSinceSweep = 0;
    for (const payer of [...this.idsByPayer.keys()]) this.trim(payer, now);
  }

  private forget(reservationId: string, payer: string): void {
    this.reservations.delete(reservationId);
    const ids = this.idsByPayer.get(payer);
    ids?.delete(reservationId);
    if (ids?.size === 0) this.idsByPayer.delete(payer);
  }

  private idsOf(payer: string): Set<string> {
    let ids = this.idsByPayer.get(payer);
    if (!ids) {
      ids = new Set();
      this.idsByPayer.set(payer, ids);
    }
    return ids;
  }
}

function sumOf(reservations: readonly (Reservation | undefined)[], now: number): DailySpending {
  const cutoff = now - DAILY_WINDOW_MS;
  let settled = 0n;
  let reserved = 0n;
  for (const reservation of reservations) {
    if (!reservation) continue;
    if (reservation.state === "committed") {
      if (reservation.at > cutoff) settled += reservation.amount;
    } else if (reservation.expiresAt > now) {
      reserved += reservation.amount;
    }
  }
  return { settled, reserved };
}

function toEntry(reservationId: string, reservation: Extract<Reservation, { state: "committed" }>): SettledEntry {
  return { reservationId, amount: reservation.amount, txHash: reservation.txHash, at: reservation.at };
}
