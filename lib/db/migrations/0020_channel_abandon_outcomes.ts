import "server-only";
/**
 * Migration 0020: what `channel_abandon` leaves behind. A channel turn that was never used
 * leaves no journal row; a call whose outcome is unknown is left for the next settle to decide.
 *
 * A repeat call's acquisition starts beside its unpaid request (the early turn,
 * lib/agent/purchase/channels/early-turn.ts) and journals a `signing` row for the voucher it
 * expects. When the purchase does not use that turn (the service answered for free, offered
 * another price, or the purchase failed before a quote), nothing was signed and the stream showed
 * nothing under that row; 0017's `channel_abandon` turned it into a `failed` payment in the
 * history that no one saw fail.
 *
 * `channel_abandon` is replaced: `p_spent = 'unused'` frees the reservations as 'nothing' does,
 * and deletes the voucher's journal row and its events while the row is still the turn's own
 * (`signing`). A row another writer moved on (a failure the stream showed, journaled by the
 * request's tracker) is kept as that writer left it. The row is locked before it is read, so a
 * tracker's write that races the release lands either before (kept) or after (a fresh row).
 *
 * `p_spent = 'unknown'` (the voucher may have reached the service, its answer did not reach us)
 * also records the call as the channel's lost call (0019's `channel_remember_lost_call`), so
 * the next settle commits or frees its reservation by what the server counted, as for a call
 * lost with its lease.
 */
import { sql, type Kysely, type Migration } from "kysely";

export const channelAbandonOutcomesMigration: Migration = {
  async up(db: Kysely<unknown>) {
    // 0017's, plus 'unused', and 'unknown' remembered as the lost call.
    await sql`
      CREATE OR REPLACE FUNCTION channel_abandon(p_channel_id text, p_lease text, p_reservation_id text, p_deposit_reservation_id text, p_spent text)
      RETURNS text LANGUAGE plpgsql VOLATILE AS $$
      DECLARE
        ch payment_channels;
        voucher budget_reservations;
        now_ms bigint;
        ours boolean;
        frees boolean := p_spent IN ('nothing', 'unused');
        row_status text;
      BEGIN
        SELECT * INTO ch FROM payment_channels c WHERE c.channel_id = p_channel_id;
        IF NOT FOUND THEN RETURN 'unknown'; END IF;
        PERFORM pg_advisory_xact_lock(hashtext('ledger:' || ch.payer));
        SELECT * INTO ch FROM payment_channels c WHERE c.channel_id = p_channel_id FOR UPDATE;
        now_ms := db_now_ms();
        ours := ch.lease_id IS NOT DISTINCT FROM p_lease AND ch.lease_reservation_id IS NOT DISTINCT FROM p_reservation_id;
        IF frees THEN
          DELETE FROM budget_reservations WHERE reservation_id = p_reservation_id AND state = 'reserved' RETURNING * INTO voucher;
          IF voucher.drawn_from IS NOT NULL THEN
            UPDATE budget_reservations SET amount = amount + voucher.amount WHERE reservation_id = voucher.drawn_from AND state = 'reserved';
          END IF;
          IF p_deposit_reservation_id IS NOT NULL AND p_deposit_reservation_id = ch.pending_deposit_reservation_id THEN
            DELETE FROM budget_reservations WHERE reservation_id = p_deposit_reservation_id AND state = 'reserved';
            UPDATE payment_channels c SET pending_deposit_reservation_id = NULL WHERE c.channel_id = p_channel_id;
            IF ch.deposit_payment_id IS NOT NULL THEN
              PERFORM channel_journal_step(ch.deposit_payment_id, 'failed', ch, NULL, NULL, now_ms, jsonb_build_object('kind', 'deposit'));
            END IF;
          END IF;
        ELSIF p_deposit_reservation_id IS NOT NULL AND p_deposit_reservation_id = ch.pending_deposit_reservation_id AND ch.deposit_payment_id IS NOT NULL THEN
          PERFORM channel_journal_step(ch.deposit_payment_id, 'pending', ch, NULL, NULL, now_ms, jsonb_build_object('kind', 'deposit'));
        END IF;
        IF ours THEN
          IF ch.lease_payment_id IS NOT NULL AND p_spent = 'unused' THEN
            SELECT p.status INTO row_status FROM payments p WHERE p.id = ch.lease_payment_id FOR UPDATE;
            IF row_status = 'signing' THEN
              DELETE FROM payment_events e WHERE e.payment_id = ch.lease_payment_id;
              DELETE FROM payments p WHERE p.id = ch.lease_payment_id;
            END IF;
          ELSIF ch.lease_payment_id IS NOT NULL THEN
            PERFORM channel_journal_step(ch.lease_payment_id, CASE WHEN p_spent = 'nothing' THEN 'failed' ELSE 'pending' END, ch, NULL, NULL, now_ms,
              jsonb_build_object('kind', 'voucher', 'spent', p_spent));
          END IF;
          IF p_spent = 'unknown' THEN ch := channel_remember_lost_call(ch); END IF;
          UPDATE payment_channels c SET lease_id = NULL, lease_until = NULL, lease_reservation_id = NULL, lease_price = NULL,
            lease_payment_id = NULL, updated_at = now_ms WHERE c.channel_id = p_channel_id;
        END IF;
        RETURN CASE WHEN ours THEN 'abandoned' ELSE 'lease-lost' END;
      END
      $$`.execute(db);
  },
};
