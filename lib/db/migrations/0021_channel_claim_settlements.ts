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
 * - `channel_journal_step` (0016's) is replaced to take a row's `message` from `p_extra` like its
 *   other first-step columns, so a claim's and a payout's rows say in the history what they are
 *   (the upkeep statements also name the channel's service, from its deposit's row).
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
    await sql`
      CREATE OR REPLACE FUNCTION channel_journal_step(p_id text, p_status text, p_channel payment_channels, p_amount numeric, p_tx text,
        p_at bigint, p_details jsonb, p_extra jsonb DEFAULT '{}'::jsonb) RETURNS void LANGUAGE plpgsql AS $$
      BEGIN
        PERFORM record_payment_step(p_id => p_id, p_status => p_status, p_payer => p_channel.payer,
          p_payer_kind => coalesce(p_extra->>'payerKind', 'agent'), p_payer_kind_given => p_extra ? 'payerKind', p_nonce => NULL,
          p_request_key => p_extra->>'requestKey', p_conversation_id => p_extra->>'conversationId', p_service => p_extra->>'service',
          p_resource => p_extra->>'resource', p_method => NULL, p_amount => p_amount, p_asset => p_channel.token,
          p_network => p_channel.network, p_pay_to => p_channel.receiver, p_valid_after => NULL, p_valid_before => NULL, p_reason => NULL,
          p_message => p_extra->>'message', p_tx_hash => p_tx, p_receipt => NULL, p_at => p_at,
          p_details => p_details || jsonb_build_object('channelId', p_channel.channel_id), p_scheme => 'batch-settlement');
      END
      $$`.execute(db);
  },
};
