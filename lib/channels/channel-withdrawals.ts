import "server-only";
/**
 * The channel ledger's part of the payer's own withdrawal (migration 0018): counting the
 * cooperative refunds a service failed, taking a channel for `initiateWithdraw` once they are
 * enough, recording the initiation, and taking a withdrawal due on the chain's clock for
 * `finalizeWithdraw`. Each is one statement; a claim is a conditional UPDATE over rows taken
 * with FOR UPDATE SKIP LOCKED, and it expires (database clock), so a crashed instance's step is
 * taken again and two instances never send the same one. The finalize is recorded by the
 * ledger's `refunded`, which closes the channel.
 */
import { sql, type Kysely, type Selectable } from "kysely";
import type { Database, PaymentChannelsTable } from "../db/schema";
import { checkAmount, checkChannelId, checkPositiveInteger, checkSignature } from "./channel-input";
import type { ChannelIdentity, ChannelState } from "./channel-ledger";
import { toChannel } from "./channel-rows";

/** The lease a withdrawing channel holds until it closes: `channel_acquire` answers busy for it. */
const WITHDRAWAL_LEASE = "withdrawal";
const FOREVER = 9007199254740991n;

type Channel = ChannelIdentity & ChannelState;

export async function refundRefused(db: Kysely<Database>, channelId: `0x${string}`): Promise<number> {
  const { rows } = await sql<{ refund_failures: number }>`
      UPDATE payment_channels SET state = 'open', lease_until = NULL, refund_failures = refund_failures + 1, updated_at = db_now_ms()
      WHERE channel_id = ${checkChannelId(channelId)} AND state = 'refunding' RETURNING refund_failures`.execute(db);
  return rows[0]?.refund_failures ?? 0;
}

export async function claimForWithdrawal(db: Kysely<Database>, failures: number, limit: number, claimMs: number): Promise<Channel[]> {
  // An open channel whose refunds failed `failures` times in a row and that no call holds, or a
  // withdrawal whose initiation an instance claimed and never recorded (its claim expired).
  const { rows } = await sql<Selectable<PaymentChannelsTable>>`
      UPDATE payment_channels c SET state = 'withdrawing', lease_id = ${WITHDRAWAL_LEASE}, lease_until = ${FOREVER.toString()}::bigint,
        lease_reservation_id = NULL, lease_price = NULL, lease_payment_id = NULL,
        withdraw_claim_until = db_now_ms() + ${checkPositiveInteger(claimMs, "claimMs")}::bigint, updated_at = db_now_ms()
      WHERE c.channel_id IN (
        SELECT i.channel_id FROM payment_channels i
        WHERE (i.state = 'open' AND i.refund_failures >= ${checkPositiveInteger(failures, "failures")}
               AND (i.lease_id IS NULL OR i.lease_until <= db_now_ms()))
           OR (i.state = 'withdrawing' AND i.withdraw_ready_at IS NULL AND i.withdraw_claim_until <= db_now_ms())
        ORDER BY i.last_used_at LIMIT ${checkPositiveInteger(limit, "limit")} FOR UPDATE SKIP LOCKED)
      RETURNING c.*`.execute(db);
  return rows.map(toChannel);
}

export async function withdrawalStarted(
  db: Kysely<Database>,
  input: { channelId: `0x${string}`; amount: bigint; readyAt: bigint; txHash?: `0x${string}` },
): Promise<void> {
  const id = checkChannelId(input.channelId);
  const tx = input.txHash === undefined ? null : checkSignature(input.txHash);
  const readyAt = checkAmount(input.readyAt, "readyAt").toString();
  // One statement: the channel waits for its ready time, and the initiation is a journal row.
  const { rows } = await sql<{ recorded: number }>`
      WITH started AS (
        UPDATE payment_channels SET withdraw_ready_at = ${readyAt}::bigint, withdraw_tx = ${tx}, withdraw_claim_until = NULL,
          updated_at = db_now_ms()
        WHERE channel_id = ${id} AND state = 'withdrawing' RETURNING *
      ), journaled AS (
        SELECT channel_journal_step('withdraw:' || c.channel_id || ':' || ${tx}::text, 'confirmed', c,
          ${checkAmount(input.amount, "amount").toString()}::numeric, ${tx}, db_now_ms(),
          jsonb_build_object('kind', 'withdrawal', 'readyAt', ${readyAt}::text), jsonb_build_object('resource', c.service_url))
        FROM payment_channels c JOIN started s ON s.channel_id = c.channel_id WHERE ${tx}::text IS NOT NULL
      )
      SELECT (SELECT count(*) FROM started)::int AS recorded, (SELECT count(*) FROM journaled)::int AS journaled`.execute(db);
  if (!rows[0]?.recorded) throw new Error(`channel ${id} is not being withdrawn`);
}

export async function claimDueWithdrawals(db: Kysely<Database>, chainNowSeconds: bigint, limit: number, claimMs: number): Promise<Channel[]> {
  const { rows } = await sql<Selectable<PaymentChannelsTable>>`
      UPDATE payment_channels c SET withdraw_claim_until = db_now_ms() + ${checkPositiveInteger(claimMs, "claimMs")}::bigint, updated_at = db_now_ms()
      WHERE c.channel_id IN (
        SELECT i.channel_id FROM payment_channels i
        WHERE i.state = 'withdrawing' AND i.withdraw_ready_at <= ${checkAmount(chainNowSeconds, "chainNowSeconds").toString()}::bigint
          AND (i.withdraw_claim_until IS NULL OR i.withdraw_claim_until <= db_now_ms())
        ORDER BY i.withdraw_ready_at LIMIT ${checkPositiveInteger(limit, "limit")} FOR UPDATE SKIP LOCKED)
      RETURNING c.*`.execute(db);
  return rows.map(toChannel);
}

export async function withdrawalReleased(db: Kysely<Database>, channelId: `0x${string}`): Promise<void> {
  // Not initiated: the channel is open again (its refunds count on). Initiated: it waits, unclaimed.
  await sql`
      UPDATE payment_channels SET withdraw_claim_until = NULL, updated_at = db_now_ms(),
        state = CASE WHEN withdraw_ready_at IS NULL THEN 'open' ELSE state END,
        lease_id = CASE WHEN withdraw_ready_at IS NULL THEN NULL ELSE lease_id END,
        lease_until = CASE WHEN withdraw_ready_at IS NULL THEN NULL ELSE lease_until END
      WHERE channel_id = ${checkChannelId(channelId)} AND state = 'withdrawing'`.execute(db);
}
