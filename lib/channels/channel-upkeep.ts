import "server-only";
/**
 * The channel ledger's upkeep outside a call's lease: taking idle channels for their refund (and
 * giving one back when its refund failed), and recording what services claimed as the chain
 * shows it. Each is one statement (a claim: one statement per claim). database-channel-ledger.ts
 * hands its `ChannelLedger` methods to these.
 */
import { sql, type Kysely, type Selectable } from "kysely";
import type { Database, PaymentChannelsTable } from "../db/schema";
import { checkAmount, checkChannelId, checkPositiveInteger, checkSignature } from "./channel-input";
import type { ChannelClaim, ChannelIdentity, ChannelState } from "./channel-ledger";
import { toChannel } from "./channel-rows";

export async function claimForRefund(db: Kysely<Database>, idleMs: number, limit: number, refundMs: number): Promise<(ChannelIdentity & ChannelState)[]> {
  if (!Number.isSafeInteger(idleMs) || idleMs < 0) throw new RangeError("idleMs must be an integer >= 0");
  // SKIP LOCKED: a channel another statement holds (a call's acquire, another instance's
  // claim) is left for a later run rather than waited for.
  const { rows } = await sql<Selectable<PaymentChannelsTable>>`
      UPDATE payment_channels c SET state = 'refunding', lease_until = db_now_ms() + ${checkPositiveInteger(refundMs, "refundMs")}::bigint,
        updated_at = db_now_ms()
      WHERE c.channel_id IN (
        SELECT i.channel_id FROM payment_channels i
        WHERE (i.state = 'open' AND i.last_used_at <= db_now_ms() - ${idleMs}::bigint AND (i.lease_id IS NULL OR i.lease_until <= db_now_ms()))
           OR (i.state = 'refunding' AND i.lease_until <= db_now_ms())
        ORDER BY i.last_used_at LIMIT ${checkPositiveInteger(limit, "limit")} FOR UPDATE SKIP LOCKED)
      RETURNING c.*`.execute(db);
  return rows.map(toChannel);
}

export async function recordClaims(db: Kysely<Database>, channelId: `0x${string}`, claims: readonly ChannelClaim[]): Promise<number> {
  const id = checkChannelId(channelId);
  let recorded = 0;
  for (const claim of claims) {
    const tx = checkSignature(claim.txHash);
    const journalId = `claim:${id}:${tx}`;
    // One statement a claim: the journal row only when it is new, the channel's total after it.
    const { rows } = await sql<{ recorded: boolean }>`
        WITH fresh AS (
          SELECT channel_journal_step(${journalId}, 'confirmed', c, ${checkAmount(claim.claimed, "claimed").toString()}::numeric, ${tx}, db_now_ms(),
            jsonb_build_object('kind', 'claim', 'totalClaimed', ${claim.totalClaimed.toString()}::text), jsonb_build_object('resource', c.service_url)) AS step
          FROM payment_channels c
          WHERE c.channel_id = ${id} AND NOT EXISTS (SELECT 1 FROM payments p WHERE p.id = ${journalId})
        ), total AS (
          UPDATE payment_channels SET total_claimed = greatest(total_claimed, ${checkAmount(claim.totalClaimed, "totalClaimed").toString()}::numeric)
          WHERE channel_id = ${id} RETURNING 1
        )
        SELECT (SELECT count(*) FROM fresh) > 0 AS recorded, (SELECT count(*) FROM total) AS touched`.execute(db);
    if (rows[0]?.recorded) recorded += 1;
  }
  return recorded;
}

export async function refundFailed(db: Kysely<Database>, channelId: `0x${string}`): Promise<void> {
  await sql`UPDATE payment_channels SET state = 'open', lease_until = NULL, updated_at = db_now_ms()
      WHERE channel_id = ${checkChannelId(channelId)} AND state = 'refunding'`.execute(db);
}
