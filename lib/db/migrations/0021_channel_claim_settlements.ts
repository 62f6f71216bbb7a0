import "server-only";
/**
 * Migration 0021: when a service's claims on a channel reach it.
 *
 * A batch-settlement service is paid in two steps on chain. `claim` moves what the vouchers
 * allow from each channel's deposit to the receiver's balance inside the contract (one event per
 * channel, journaled since 0016 as `claim:<channel id>:<tx>`); `settle(receiver, token)` then
 * pays the receiver every amount it has claimed in that token and not yet been paid, over all
 * its channels, in one transfer (one `Settled` event, no channel named). So a payout covers
 * exactly the claims made before it in the chain's order, and a channel's share of it is the sum
 * of its claims it covers.
 *
 * - `channel_claims`: each claim the ledger recorded, with its place in the chain (block, log
 *   index) and the payout that covered it (`settled_tx`, null until one does).
 * - A payout becomes one journal row per channel it covers (`settle:<channel id>:<tx>`,
 *   confirmed, that channel's share, the payout's transaction), written in the statement that
 *   marks the claims (lib/channels/channel-upkeep.ts), so the history shows deposit, vouchers,
 *   claims, payout and refund, and a channel's payout rows add up to its claims paid out.
 */
import { sql, type Kysely, type Migration } from "kysely";

export const channelClaimSettlementsMigration: Migration = {
  async up(db: Kysely<unknown>) {
    await sql`
      CREATE TABLE channel_claims (
        channel_id text NOT NULL REFERENCES payment_channels (channel_id),
        tx_hash text NOT NULL,
        block_number bigint NOT NULL,
        log_index integer NOT NULL,
        claimed numeric(78, 0) NOT NULL,
        settled_tx text,
        PRIMARY KEY (channel_id, tx_hash)
      )`.execute(db);
    // The reconciler's question: which claims no payout has covered yet.
    await sql`CREATE INDEX channel_claims_unsettled ON channel_claims (channel_id) WHERE settled_tx IS NULL`.execute(db);
  },
};
