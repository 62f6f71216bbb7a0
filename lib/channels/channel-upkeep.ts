import "server-only";
/**
 * The channel ledger's upkeep outside a call's lease: taking idle channels for their refund (and
 * giving one back when its refund failed), and recording what services claimed and what their
 * receivers were paid out, as the chain shows it. Each is one statement (a claim: one statement
 * per claim). database-channel-ledger.ts hands its `ChannelLedger` methods to these.
 */
import { sql, type Kysely, type Selectable } from "kysely";
import type { Database, PaymentChannelsTable } from "../db/schema";
import { checkAmount, checkChannelId, checkPositiveInteger, checkSignature, normalizePayer } from "./channel-input";
import type { ChannelClaim, ChannelIdentity, ChannelState, ReceiverSettlement, UnpaidClaims } from "./channel-ledger";
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
            jsonb_build_object('kind', 'claim', 'totalClaimed', ${claim.totalClaimed.toString()}::text), ${historyFacts(CLAIM_WORDS)}) AS step
          FROM payment_channels c
          WHERE c.channel_id = ${id} AND NOT EXISTS (SELECT 1 FROM payments p WHERE p.id = ${journalId})
        ), total AS (
          UPDATE payment_channels SET total_claimed = greatest(total_claimed, ${checkAmount(claim.totalClaimed, "totalClaimed").toString()}::numeric)
          WHERE channel_id = ${id} RETURNING 1
        ), placed AS (
          -- Its place in the chain, for the receiver's payout that will cover it (0021).
          INSERT INTO channel_claims (channel_id, tx_hash, block_number, log_index, claimed)
          SELECT c.channel_id, ${tx}, ${checkBlock(claim.blockNumber)}::bigint, ${checkLogIndex(claim.logIndex)}, ${checkAmount(claim.claimed, "claimed").toString()}::numeric
          FROM payment_channels c WHERE c.channel_id = ${id}
          ON CONFLICT (channel_id, tx_hash) DO NOTHING RETURNING 1
        )
        SELECT (SELECT count(*) FROM fresh) > 0 AS recorded, (SELECT count(*) FROM total) AS touched, (SELECT count(*) FROM placed) AS placed`.execute(db);
    if (rows[0]?.recorded) recorded += 1;
  }
  return recorded;
}

/**
 * Where the payer's recorded claims still wait for their receiver's payout: each receiver and
 * token with the first block to look from, at most `limit`, the most recently claiming first (a
 * receiver that stopped claiming and never paid out does not crowd out the active ones).
 */
export async function unpaidClaims(db: Kysely<Database>, payer: `0x${string}`, limit: number): Promise<UnpaidClaims[]> {
  const { rows } = await sql<{ receiver: `0x${string}`; token: `0x${string}`; from_block: string }>`
      SELECT c.receiver, c.token, min(k.block_number)::text AS from_block
      FROM channel_claims k JOIN payment_channels c ON c.channel_id = k.channel_id
      WHERE k.settled_tx IS NULL AND c.payer = ${normalizePayer(payer)}
      GROUP BY c.receiver, c.token ORDER BY max(k.block_number) DESC, c.receiver, c.token LIMIT ${checkPositiveInteger(limit, "limit")}`.execute(db);
  return rows.map((row) => ({ receiver: row.receiver, token: row.token, fromBlock: BigInt(row.from_block) }));
}

/**
 * One payout to a receiver, as the chain shows it: every claim of the receiver's channels in
 * that token recorded before it (chain order) and not yet covered is marked covered by it, and
 * each channel it covers gets one journal row of its share (`settle:<channel id>:<tx>`). One
 * statement; a payout read again covers nothing more. Returns the channels journaled.
 */
export async function recordPayout(
  db: Kysely<Database>,
  input: { receiver: `0x${string}`; token: `0x${string}`; payout: ReceiverSettlement },
): Promise<number> {
  const tx = checkSignature(input.payout.txHash);
  const { rows } = await sql<{ channels: string }>`
      WITH covered AS (
        UPDATE channel_claims k SET settled_tx = ${tx}
        FROM payment_channels c
        WHERE k.channel_id = c.channel_id AND c.receiver = ${lowerAddress(input.receiver)} AND c.token = ${lowerAddress(input.token)}
          AND k.settled_tx IS NULL
          AND (k.block_number, k.log_index) < (${checkBlock(input.payout.blockNumber)}::bigint, ${checkLogIndex(input.payout.logIndex)})
        RETURNING k.channel_id, k.claimed
      ), shares AS (
        -- A claim recorded late (its read failed on an earlier run) joins the payout row its
        -- channel already has: the row's amount is every claim of the channel this payout covers.
        -- (This statement's snapshot still shows the claims it covers now as uncovered.)
        SELECT n.channel_id, n.amount + coalesce((SELECT sum(k.claimed) FROM channel_claims k WHERE k.channel_id = n.channel_id AND k.settled_tx = ${tx}), 0) AS amount
        FROM (SELECT channel_id, sum(claimed) AS amount FROM covered GROUP BY channel_id) n
      ), journaled AS (
        SELECT channel_journal_step('settle:' || c.channel_id || ':' || ${tx}, 'confirmed', c, s.amount, ${tx}, db_now_ms(),
          jsonb_build_object('kind', 'payout', 'payout', ${checkAmount(input.payout.amount, "amount").toString()}::text),
          ${historyFacts(PAYOUT_WORDS)})
        FROM shares s JOIN payment_channels c ON c.channel_id = s.channel_id
      )
      SELECT count(*)::text AS channels FROM journaled`.execute(db);
  return Number(rows[0]?.channels ?? 0);
}

/** What a claim's and a payout's rows say in the history. */
const CLAIM_WORDS = "The service claimed this amount of the channel's vouchers from its deposit, on chain.";
const PAYOUT_WORDS = "The service was paid out this channel's claims, on chain (one payout covers every channel it claimed on before it).";

/**
 * A claim's or payout's first-step columns (`p_extra` of `channel_journal_step`), built in SQL
 * from the channel row `c`: its URL, its service's name from its deposit's row, and the words.
 */
function historyFacts(words: string) {
  return sql`jsonb_build_object('resource', c.service_url, 'service', (SELECT d.service FROM payments d WHERE d.id = c.deposit_payment_id), 'message', ${words}::text)`;
}

/** Any address (a receiver's, a token's), checked and lower-cased as the ledger stores it. */
const lowerAddress = (address: string): string => normalizePayer(address);

function checkBlock(block: bigint): string {
  if (typeof block !== "bigint" || block < 0n) throw new RangeError("blockNumber must be a bigint >= 0");
  return block.toString();
}

function checkLogIndex(index: number): number {
  if (!Number.isSafeInteger(index) || index < 0) throw new RangeError("logIndex must be an integer >= 0");
  return index;
}

export async function refundFailed(db: Kysely<Database>, channelId: `0x${string}`): Promise<void> {
  await sql`UPDATE payment_channels SET state = 'open', lease_until = NULL, updated_at = db_now_ms()
      WHERE channel_id = ${checkChannelId(channelId)} AND state = 'refunding'`.execute(db);
}
