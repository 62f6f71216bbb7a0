import "server-only";
/**
 * Migration 0016: the channel calls that end a lease or close a channel (lib/channels), each one
 * function call: `channel_settle`, `channel_abandon`, `channel_resync`, `channel_refunded`. They
 * take the payer's advisory lock first, then the channel's row, as 0015's calls do. Budgets and
 * journal facts as 0015 describes.
 *
 * A confirmed deposit counts as reserved for the payer until the channel is refunded (the money
 * left the wallet): its reservation's expiry moves to 9007199254740991 (the largest safe integer,
 * so it reads back as a JavaScript number). A top-up's confirmation folds what the
 * previous deposit's reservation still held into the new one, so a channel has one.
 */
import { sql, type Kysely, type Migration } from "kysely";

export const channelSettlementMigration: Migration = {
  async up(db: Kysely<unknown>) {
    // The pending deposit became the channel's: one open reservation, held until the refund.
    await sql`
      CREATE FUNCTION channel_confirm_deposit(p_channel_id text, p_now bigint, p_tx text) RETURNS payment_channels
      LANGUAGE plpgsql AS $$
      DECLARE
        ch payment_channels;
      BEGIN
        SELECT * INTO ch FROM payment_channels c WHERE c.channel_id = p_channel_id;
        IF ch.pending_deposit_reservation_id IS NULL THEN RETURN ch; END IF;
        IF ch.deposit_reservation_id IS NOT NULL THEN
          UPDATE budget_reservations n SET amount = n.amount + o.amount FROM budget_reservations o
          WHERE n.reservation_id = ch.pending_deposit_reservation_id AND o.reservation_id = ch.deposit_reservation_id
            AND o.state = 'reserved' AND o.expires_at > p_now;
          DELETE FROM budget_reservations WHERE reservation_id = ch.deposit_reservation_id AND state = 'reserved';
        END IF;
        UPDATE budget_reservations SET expires_at = 9007199254740991 WHERE reservation_id = ch.pending_deposit_reservation_id AND state = 'reserved';
        UPDATE payment_channels c SET deposit_reservation_id = ch.pending_deposit_reservation_id, pending_deposit_reservation_id = NULL,
          state = 'open', updated_at = p_now WHERE c.channel_id = p_channel_id RETURNING * INTO ch;
        IF ch.deposit_payment_id IS NOT NULL THEN
          PERFORM channel_journal_step(ch.deposit_payment_id, 'confirmed', ch, NULL, p_tx, p_now, jsonb_build_object('kind', 'deposit'));
        END IF;
        RETURN ch;
      END
      $$`.execute(db);
    await sql`
      CREATE FUNCTION channel_settle(
        p_channel_id text, p_lease text, p_reservation_id text, p_charged numeric, p_charged_amount numeric,
        p_signed_max numeric, p_signature text, p_deposit_total numeric, p_deposit_tx text, p_deposit_reservation_id text,
        p_total_claimed numeric
      ) RETURNS text LANGUAGE plpgsql VOLATILE AS $$
      DECLARE
        ch payment_channels;
        voucher budget_reservations;
        now_ms bigint;
        source text;
        payment_id text;
      BEGIN
        SELECT * INTO ch FROM payment_channels c WHERE c.channel_id = p_channel_id;
        IF NOT FOUND THEN RETURN 'unknown'; END IF;
        PERFORM pg_advisory_xact_lock(hashtext('ledger:' || ch.payer));
        SELECT * INTO ch FROM payment_channels c WHERE c.channel_id = p_channel_id FOR UPDATE;
        now_ms := db_now_ms();
        SELECT * INTO voucher FROM budget_reservations b WHERE b.reservation_id = p_reservation_id;
        IF FOUND AND voucher.state = 'committed' THEN RETURN 'already-settled'; END IF;
        IF ch.lease_id IS DISTINCT FROM p_lease OR ch.lease_reservation_id IS DISTINCT FROM p_reservation_id THEN RETURN 'lease-lost'; END IF;
        IF p_charged_amount > ch.lease_price THEN RETURN 'exceeds'; END IF;
        payment_id := coalesce(ch.lease_payment_id, p_reservation_id);
        IF p_deposit_total IS NOT NULL THEN
          IF ch.pending_deposit_reservation_id IS DISTINCT FROM p_deposit_reservation_id THEN RETURN 'deposit-unknown'; END IF;
          ch := channel_confirm_deposit(p_channel_id, now_ms, p_deposit_tx);
        END IF;
        IF voucher.reservation_id IS NOT NULL THEN
          UPDATE budget_reservations SET state = 'committed', amount = p_charged_amount, committed_at = now_ms,
            tx_hash = 'channel:' || p_channel_id || ':' || p_signed_max::text
          WHERE reservation_id = p_reservation_id;
          -- What the call did not cost goes back to the deposit's reservation it was drawn from.
          UPDATE budget_reservations SET amount = amount + (voucher.amount - p_charged_amount)
          WHERE reservation_id = voucher.drawn_from AND state = 'reserved';
        ELSE
          -- The first voucher of a deposit (acquire said deposit-needed): paid out of that deposit's
          -- reservation, which the same caller's budgets hold.
          source := coalesce(p_deposit_reservation_id, ch.deposit_reservation_id);
          INSERT INTO budget_reservations (reservation_id, payer, amount, state, tx_hash, expires_at, committed_at, budget_key, pool_key, drawn_from)
          SELECT p_reservation_id, ch.payer, p_charged_amount, 'committed', 'channel:' || p_channel_id || ':' || p_signed_max::text,
            now_ms, now_ms, d.budget_key, d.pool_key, d.reservation_id
          FROM (SELECT NULL) AS one LEFT JOIN budget_reservations d ON d.reservation_id = source AND d.state = 'reserved';
          UPDATE budget_reservations SET amount = greatest(amount - p_charged_amount, 0) WHERE reservation_id = source AND state = 'reserved';
        END IF;
        UPDATE payment_channels c SET charged = p_charged,
          signature = CASE WHEN p_signed_max >= c.signed_max THEN p_signature ELSE c.signature END,
          signed_max = greatest(c.signed_max, p_signed_max), total_claimed = coalesce(p_total_claimed, c.total_claimed),
          deposited = coalesce(p_deposit_total, c.deposited), lease_id = NULL, lease_until = NULL, lease_reservation_id = NULL,
          lease_price = NULL, lease_payment_id = NULL, last_used_at = now_ms, updated_at = now_ms
        WHERE c.channel_id = p_channel_id RETURNING * INTO ch;
        PERFORM channel_journal_step(payment_id, 'delivered', ch, p_charged_amount, NULL, now_ms,
          jsonb_build_object('kind', 'voucher', 'cumulative', p_signed_max::text, 'charged', p_charged::text));
        RETURN 'settled';
      END
      $$`.execute(db);
    // The call ended without a charge we know of: "nothing" frees its reservations, "unknown" keeps them.
    await sql`
      CREATE FUNCTION channel_abandon(p_channel_id text, p_lease text, p_reservation_id text, p_deposit_reservation_id text, p_spent text)
      RETURNS text LANGUAGE plpgsql VOLATILE AS $$
      DECLARE
        ch payment_channels;
        voucher budget_reservations;
        now_ms bigint;
        ours boolean;
      BEGIN
        SELECT * INTO ch FROM payment_channels c WHERE c.channel_id = p_channel_id;
        IF NOT FOUND THEN RETURN 'unknown'; END IF;
        PERFORM pg_advisory_xact_lock(hashtext('ledger:' || ch.payer));
        SELECT * INTO ch FROM payment_channels c WHERE c.channel_id = p_channel_id FOR UPDATE;
        now_ms := db_now_ms();
        ours := ch.lease_id IS NOT DISTINCT FROM p_lease AND ch.lease_reservation_id IS NOT DISTINCT FROM p_reservation_id;
        IF p_spent = 'nothing' THEN
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
          IF ch.lease_payment_id IS NOT NULL THEN
            PERFORM channel_journal_step(ch.lease_payment_id, CASE WHEN p_spent = 'nothing' THEN 'failed' ELSE 'pending' END, ch, NULL, NULL, now_ms,
              jsonb_build_object('kind', 'voucher', 'spent', p_spent));
          END IF;
          UPDATE payment_channels c SET lease_id = NULL, lease_until = NULL, lease_reservation_id = NULL, lease_price = NULL,
            lease_payment_id = NULL, updated_at = now_ms WHERE c.channel_id = p_channel_id;
        END IF;
        RETURN CASE WHEN ours THEN 'abandoned' ELSE 'lease-lost' END;
      END
      $$`.execute(db);
    // The server's corrective 402 proved its state: adopt it (a deposit it shows is our pending one, confirmed).
    await sql`
      CREATE FUNCTION channel_resync(p_channel_id text, p_lease text, p_deposited numeric, p_charged numeric, p_signed_max numeric,
        p_signature text, p_total_claimed numeric) RETURNS text LANGUAGE plpgsql VOLATILE AS $$
      DECLARE
        ch payment_channels;
        now_ms bigint;
      BEGIN
        SELECT * INTO ch FROM payment_channels c WHERE c.channel_id = p_channel_id;
        IF NOT FOUND THEN RETURN 'unknown'; END IF;
        PERFORM pg_advisory_xact_lock(hashtext('ledger:' || ch.payer));
        SELECT * INTO ch FROM payment_channels c WHERE c.channel_id = p_channel_id FOR UPDATE;
        IF ch.lease_id IS DISTINCT FROM p_lease THEN RETURN 'lease-lost'; END IF;
        now_ms := db_now_ms();
        IF p_deposited > ch.deposited AND ch.pending_deposit_reservation_id IS NOT NULL THEN
          PERFORM channel_confirm_deposit(p_channel_id, now_ms, NULL);
        END IF;
        UPDATE payment_channels c SET deposited = p_deposited, charged = p_charged, signed_max = p_signed_max, signature = p_signature,
          total_claimed = p_total_claimed, state = CASE WHEN p_deposited > 0 AND c.state = 'opening' THEN 'open' ELSE c.state END,
          updated_at = now_ms WHERE c.channel_id = p_channel_id;
        RETURN 'resynced';
      END
      $$`.execute(db);
    // A refund settled: what the deposit's reservation still holds is free, the channel closed.
    await sql`
      CREATE FUNCTION channel_refunded(p_channel_id text, p_amount numeric, p_tx text) RETURNS text LANGUAGE plpgsql VOLATILE AS $$
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
        UPDATE payment_channels c SET state = 'closed', deposit_reservation_id = NULL, updated_at = now_ms
        WHERE c.channel_id = p_channel_id RETURNING * INTO ch;
        PERFORM channel_journal_step('refund:' || p_channel_id || ':' || p_tx, 'confirmed', ch, p_amount, p_tx, now_ms,
          jsonb_build_object('kind', 'refund'), jsonb_build_object('resource', ch.service_url));
        RETURN 'refunded';
      END
      $$`.execute(db);
  },
};
