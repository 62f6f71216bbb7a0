import "server-only";
/**
 * Migration 0018: the payer's own timed withdrawal from a channel whose service will not refund
 * (lib/channels/channel-withdrawals.ts; docs/decisions.md, "Channel state and budgets in the
 * database").
 *
 * `refund_failures` counts the cooperative refunds that failed in a row. A channel withdrawn
 * alone is in state 'withdrawing' and holds the lease `withdrawal` until 9007199254740991 (the
 * largest safe integer): `channel_acquire` (0016) answers busy for a live lease, so no call signs
 * on a channel whose deposit is on its way back. `withdraw_ready_at` is the chain's time
 * (seconds) from which `finalizeWithdraw` is allowed, NULL until `initiateWithdraw` is mined;
 * `withdraw_tx` its transaction; `withdraw_claim_until` the database-clock end of one instance's
 * claim on the next step (initiate or finalize), so two instances never both send it.
 *
 * `channel_refunded` is replaced so a closed channel also drops that lease and the withdrawal's
 * columns (a deposit on the same channel later opens it fresh).
 */
import { sql, type Kysely, type Migration } from "kysely";

export const channelWithdrawalsMigration: Migration = {
  async up(db: Kysely<unknown>) {
    await sql`
      ALTER TABLE payment_channels ADD COLUMN refund_failures integer NOT NULL DEFAULT 0,
        ADD COLUMN withdraw_ready_at bigint, ADD COLUMN withdraw_tx text, ADD COLUMN withdraw_claim_until bigint`.execute(db);
    await sql`ALTER TABLE payment_channels DROP CONSTRAINT payment_channels_state_check`.execute(db);
    await sql`
      ALTER TABLE payment_channels ADD CONSTRAINT payment_channels_state_check
        CHECK (state IN ('opening', 'open', 'refunding', 'withdrawing', 'closed'))`.execute(db);
    await sql`CREATE INDEX payment_channels_withdrawing ON payment_channels (withdraw_ready_at) WHERE state = 'withdrawing'`.execute(db);
    // 0017's, plus: no lease and no withdrawal left on a closed channel.
    await sql`
      CREATE OR REPLACE FUNCTION channel_refunded(p_channel_id text, p_amount numeric, p_tx text) RETURNS text LANGUAGE plpgsql VOLATILE AS $$
      DECLARE
        ch payment_channels;
        now_ms bigint;
      BEGIN
        SELECT * INTO ch FROM payment_channels c WHERE c.channel_id = p_channel_id;
        IF NOT FOUND THEN RETURN 'unknown'; END IF;
        PERFORM pg_advisory_xact_lock(hashtext('ledger:' || ch.payer));
        SELECT * INTO ch FROM payment_channels c WHERE c.channel_id = p_channel_id FOR UPDATE;
        now_ms := db_now_ms();
        DELETE FROM budget_reservations WHERE reservation_id = ch.deposit_reservation_id AND state = 'reserved';
        UPDATE payment_channels c SET state = 'closed', deposit_reservation_id = NULL, refund_failures = 0,
          lease_id = CASE WHEN c.lease_id = 'withdrawal' THEN NULL ELSE c.lease_id END,
          lease_until = CASE WHEN c.lease_id = 'withdrawal' THEN NULL ELSE c.lease_until END,
          withdraw_ready_at = NULL, withdraw_tx = NULL, withdraw_claim_until = NULL, updated_at = now_ms
        WHERE c.channel_id = p_channel_id RETURNING * INTO ch;
        PERFORM channel_journal_step('refund:' || p_channel_id || ':' || p_tx, 'confirmed', ch, p_amount, p_tx, now_ms,
          jsonb_build_object('kind', 'refund'), jsonb_build_object('resource', ch.service_url));
        RETURN 'refunded';
      END
      $$`.execute(db);
  },
};
