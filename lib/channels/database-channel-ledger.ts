import "server-only";
/**
 * The channel ledger in the database (`payment_channels` and `channel_claims`, migrations 0016
 * to 0021). Each call is one function call, so one round trip: the hot path of a repeat call is `acquire` and
 * `settle`, which also write the voucher's journal row. Times are the database's clock.
 */
import { sql, type Kysely } from "kysely";
import type { Database } from "../db/schema";
import { toChannel } from "./channel-rows";
import { claimForRefund, recordClaims, recordPayout, refundFailed, unpaidClaims } from "./channel-upkeep";
import { claimDueWithdrawals, claimForWithdrawal, refundRefused, withdrawalReleased, withdrawalStarted } from "./channel-withdrawals";
import { DAILY_WINDOW_MS, RESERVATION_TTL_MS } from "../limits/budget-window";
import { exceedsReservation } from "../limits/store-input";
import {
  budgetArguments,
  checkAmount,
  checkChannelId,
  checkIdentity,
  checkJournal,
  checkLease,
  checkPositiveInteger,
  checkReservationId,
  checkSignature,
  normalizePayer,
} from "./channel-input";
import {
  ChannelLeaseLostError,
  type AcquireResult,
  type ChannelClaim,
  type ChannelIdentity,
  type ChannelLedger,
  type ChannelRefusal,
  type ChannelState,
  type UnpaidClaims,
} from "./channel-ledger";

/** How soon a caller refused as busy asks again: often enough to follow a call's lease, at most its end. */
export const BUSY_POLL_MS = 20;

type Numeric = string | number | bigint;
type AcquireRow = {
  r_status: "voucher" | "deposit-needed" | "busy" | "refused";
  r_lease: string | null;
  r_wait_ms: Numeric | null;
  r_room: Numeric | null;
  r_reason: "daily" | "scope" | "pool" | null;
  r_spent: Numeric | null;
  r_reserved: Numeric | null;
  r_limit: Numeric | null;
  r_state: ChannelState["state"];
  r_deposited: Numeric;
  r_charged: Numeric;
  r_signed_max: Numeric;
  r_signature: string | null;
  r_total_claimed: Numeric;
};

export class DatabaseChannelLedger implements ChannelLedger {
  constructor(private readonly db: Kysely<Database>) {}

  async acquire(input: Parameters<ChannelLedger["acquire"]>[0]): Promise<AcquireResult> {
    const identity = checkIdentity(input.identity);
    const budgets = budgetArguments(input.budgets);
    if (budgets.payer !== identity.payer) throw new TypeError("budgets.payer: the channel's payer pays");
    const price = checkAmount(input.price, "price").toString();
    const reservationId = checkReservationId(input.reservationId);
    const leaseMs = checkPositiveInteger(input.leaseMs, "leaseMs");
    const journal = checkJournal(input.journal, reservationId);
    const { rows } = await sql<AcquireRow>`
      SELECT * FROM channel_acquire(${identity.channelId}, ${identity.payer}, ${identity.receiver}, ${identity.token}, ${identity.network},
        ${identity.serviceUrl}, ${JSON.stringify(identity.config)}::jsonb, ${price}, ${reservationId}, ${leaseMs},
        ${budgets.payerLimit}, ${budgets.scopeKey}, ${budgets.scopeLimit}, ${budgets.poolKey}, ${budgets.poolLimit},
        ${DAILY_WINDOW_MS}, ${RESERVATION_TTL_MS}, ${journal.paymentId}, ${journal.extra}::jsonb)`.execute(this.db);
    const row = rows[0];
    if (!row) throw new Error("channel_acquire returned no row");
    const channel: ChannelState = {
      channelId: identity.channelId,
      deposited: BigInt(row.r_deposited),
      charged: BigInt(row.r_charged),
      signedMax: BigInt(row.r_signed_max),
      ...(row.r_signature ? { signature: row.r_signature as `0x${string}` } : {}),
      totalClaimed: BigInt(row.r_total_claimed),
      state: row.r_state,
    };
    const cumulative = channel.charged + input.price;
    if (row.r_status === "busy") {
      const retryInMs = Math.min(Number(row.r_wait_ms), BUSY_POLL_MS);
      return channel.state === "withdrawing" ? { status: "busy", retryInMs, withdrawing: true } : { status: "busy", retryInMs };
    }
    if (row.r_status === "refused") return refusal(row);
    if (row.r_status === "voucher") return { status: "voucher", lease: row.r_lease ?? "", channel, cumulative };
    return {
      status: "deposit-needed",
      lease: row.r_lease ?? "",
      channel: channel.state === "opening" ? undefined : channel,
      room: BigInt(row.r_room ?? 0),
      cumulative,
    };
  }

  async reserveDeposit(input: Parameters<ChannelLedger["reserveDeposit"]>[0]): Promise<{ ok: true } | ChannelRefusal> {
    const channelId = checkChannelId(input.channelId);
    const lease = checkLease(input.lease);
    const budgets = budgetArguments(input.budgets);
    const amount = checkAmount(input.amount, "amount");
    const reservationId = checkReservationId(input.reservationId);
    const journal = checkJournal(input.journal, reservationId);
    const { rows } = await sql<{ r_outcome: string; r_settled: Numeric; r_reserved: Numeric }>`
      SELECT * FROM channel_reserve_deposit(${channelId}, ${lease}, ${budgets.payer}, ${amount.toString()}, ${reservationId},
        ${budgets.payerLimit}, ${budgets.scopeKey}, ${budgets.scopeLimit}, ${budgets.poolKey}, ${budgets.poolLimit},
        ${DAILY_WINDOW_MS}, ${RESERVATION_TTL_MS}, ${journal.paymentId}, ${journal.extra}::jsonb)`.execute(this.db);
    const row = rows[0];
    if (!row) throw new Error("channel_reserve_deposit returned no row");
    if (row.r_outcome === "ok") return { ok: true };
    if (row.r_outcome === "lease-lost") throw new ChannelLeaseLostError(channelId, "the deposit was reserved");
    if (row.r_outcome === "conflict") throw new Error(`reservationId ${reservationId} was already used for a different payer, amount or scope`);
    const reason = row.r_outcome as ChannelRefusal["reason"];
    const limit = reason === "daily" ? budgets.payerLimit : reason === "pool" ? budgets.poolLimit : budgets.scopeLimit;
    return { status: "refused", reason, spent: BigInt(row.r_settled), reserved: BigInt(row.r_reserved), dailyLimit: BigInt(limit ?? 0) };
  }

  async settle(input: Parameters<ChannelLedger["settle"]>[0]): Promise<void> {
    const channelId = checkChannelId(input.channelId);
    const reservationId = checkReservationId(input.reservationId);
    const deposit = input.deposit;
    const { rows } = await sql<{ outcome: string }>`
      SELECT channel_settle(${channelId}, ${checkLease(input.lease)}, ${reservationId}, ${checkAmount(input.charged, "charged").toString()},
        ${checkAmount(input.chargedAmount, "chargedAmount").toString()}, ${checkAmount(input.signedMax, "signedMax").toString()},
        ${checkSignature(input.signature)}, ${deposit ? checkAmount(deposit.total, "deposit.total").toString() : null},
        ${deposit ? checkSignature(deposit.txHash) : null}, ${deposit ? checkReservationId(deposit.reservationId) : null},
        ${input.totalClaimed === undefined ? null : checkAmount(input.totalClaimed, "totalClaimed").toString()}) AS outcome`.execute(this.db);
    const outcome = rows[0]?.outcome;
    if (outcome === "settled" || outcome === "already-settled") return;
    if (outcome === "exceeds") throw new RangeError(exceedsReservation(reservationId));
    if (outcome === "lease-lost") throw new ChannelLeaseLostError(channelId, "the call was settled");
    throw new Error(`channel ${channelId}: settle refused (${outcome ?? "no answer"})`);
  }

  async abandon(input: Parameters<ChannelLedger["abandon"]>[0]): Promise<void> {
    const channelId = checkChannelId(input.channelId);
    if (!["nothing", "unknown", "unused"].includes(input.spent)) throw new TypeError("spent: expected nothing, unknown or unused");
    const depositReservationId = input.depositReservationId === undefined ? null : checkReservationId(input.depositReservationId);
    await sql`SELECT channel_abandon(${channelId}, ${checkLease(input.lease)}, ${checkReservationId(input.reservationId)},
      ${depositReservationId}, ${input.spent})`.execute(this.db);
  }

  async resync(input: Parameters<ChannelLedger["resync"]>[0]): Promise<void> {
    const channelId = checkChannelId(input.channelId);
    const { channel } = input;
    const { rows } = await sql<{ outcome: string }>`
      SELECT channel_resync(${channelId}, ${checkLease(input.lease)}, ${checkAmount(channel.deposited, "deposited").toString()},
        ${checkAmount(channel.charged, "charged").toString()}, ${checkAmount(channel.signedMax, "signedMax").toString()},
        ${channel.signature === undefined ? null : checkSignature(channel.signature)}, ${checkAmount(channel.totalClaimed, "totalClaimed").toString()}) AS outcome`.execute(
      this.db,
    );
    if (rows[0]?.outcome === "lease-lost") throw new ChannelLeaseLostError(channelId, "the server's state was adopted");
    if (rows[0]?.outcome !== "resynced") throw new Error(`channel ${channelId}: resync refused (${rows[0]?.outcome ?? "no answer"})`);
  }

  async idle(idleMs: number, limit: number): Promise<(ChannelIdentity & ChannelState)[]> {
    if (!Number.isSafeInteger(idleMs) || idleMs < 0) throw new RangeError("idleMs must be an integer >= 0");
    const rows = await this.db
      .selectFrom("payment_channels")
      .selectAll()
      .where("state", "=", "open")
      .where(sql<boolean>`last_used_at <= db_now_ms() - ${idleMs}::bigint AND (lease_id IS NULL OR lease_until <= db_now_ms())`)
      .orderBy("last_used_at")
      .limit(checkPositiveInteger(limit, "limit"))
      .execute();
    return rows.map(toChannel);
  }

  claimForRefund(idleMs: number, limit: number, refundMs: number): Promise<(ChannelIdentity & ChannelState)[]> {
    return claimForRefund(this.db, idleMs, limit, refundMs);
  }

  recordClaims(channelId: `0x${string}`, claims: readonly ChannelClaim[]): Promise<number> {
    return recordClaims(this.db, channelId, claims);
  }

  unpaidClaims(payer: `0x${string}`, limit: number): Promise<UnpaidClaims[]> {
    return unpaidClaims(this.db, payer, limit);
  }

  recordPayout(input: Parameters<ChannelLedger["recordPayout"]>[0]): Promise<number> {
    return recordPayout(this.db, input);
  }

  refundFailed(channelId: `0x${string}`): Promise<void> {
    return refundFailed(this.db, channelId);
  }

  refundRefused(channelId: `0x${string}`): Promise<number> {
    return refundRefused(this.db, channelId);
  }

  claimForWithdrawal(failures: number, limit: number, claimMs: number): Promise<(ChannelIdentity & ChannelState)[]> {
    return claimForWithdrawal(this.db, failures, limit, claimMs);
  }

  withdrawalStarted(input: Parameters<ChannelLedger["withdrawalStarted"]>[0]): Promise<void> {
    return withdrawalStarted(this.db, input);
  }

  claimDueWithdrawals(chainNowSeconds: bigint, limit: number, claimMs: number): Promise<(ChannelIdentity & ChannelState)[]> {
    return claimDueWithdrawals(this.db, chainNowSeconds, limit, claimMs);
  }

  withdrawalReleased(channelId: `0x${string}`): Promise<void> {
    return withdrawalReleased(this.db, channelId);
  }

  async refunded(input: Parameters<ChannelLedger["refunded"]>[0]): Promise<void> {
    const channelId = checkChannelId(input.channelId);
    const { rows } = await sql<{ outcome: string }>`
      SELECT channel_refunded(${channelId}, ${checkAmount(input.amount, "amount").toString()}, ${checkSignature(input.txHash)}) AS outcome`.execute(this.db);
    if (rows[0]?.outcome !== "refunded") throw new Error(`channel ${channelId} is unknown`);
  }

  async get(channelId: `0x${string}`): Promise<(ChannelIdentity & ChannelState) | undefined> {
    const row = await this.db.selectFrom("payment_channels").selectAll().where("channel_id", "=", checkChannelId(channelId)).executeTakeFirst();
    return row ? toChannel(row) : undefined;
  }

  async ofPayer(payer: `0x${string}`, limit: number): Promise<(ChannelIdentity & ChannelState)[]> {
    const rows = await this.db
      .selectFrom("payment_channels")
      .selectAll()
      .where("payer", "=", normalizePayer(payer))
      .orderBy("last_used_at", "desc")
      .limit(checkPositiveInteger(limit, "limit"))
      .execute();
    return rows.map(toChannel);
  }
}

function refusal(row: AcquireRow): ChannelRefusal {
  return {
    status: "refused",
    reason: row.r_reason ?? "daily",
    spent: BigInt(row.r_spent ?? 0),
    reserved: BigInt(row.r_reserved ?? 0),
    dailyLimit: BigInt(row.r_limit ?? 0),
  };
}
