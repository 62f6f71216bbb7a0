import "server-only";
/**
 * Migration 0019: a channel call lost with its instance is decided by the next settle.
 *
 * A call whose instance died (or stalled past its lease) leaves its voucher's outcome unknown:
 * the acquire that takes over its expired lease journals it `pending` and its price stays
 * reserved. Until now it stayed so until the reservation's expiry, and a charge the server had
 * counted for it was adopted by `resync` without reaching the budgets or the journal.
 *
 * The batch-settlement server accepts a voucher only when its cumulative amount is exactly its
 * own charged total plus the price. The lost voucher and the next one are both signed on the
 * charge the ledger knew (the lost call's base), so the next settle shows which happened: the
 * server's total before the settled call (`charged - chargedAmount`) is above that base, so the
 * server took the lost voucher and charged the difference (at most its price: its reservation
 * is committed at that amount, the rest goes back to the deposit, its row is `confirmed`: paid,
 * delivery unknown); or it is not, and the lost voucher can never be accepted (its reservation
 * is freed to the deposit it was drawn from, its row `failed`).
 *
 * - `payment_channels.lost_*`: the lost call's journal id, reservation and base (the charge it signed on),
 *   set by `channel_acquire` when it takes over a voucher call's lease, and by `channel_abandon`
 *   "unknown" (0020: a call whose answer was lost on the way). One at a time: a second loss
 *   before a settle replaces the first, which stays `pending` and reserved, as before.
 * - `channel_acquire` (0016's, plus setting `lost_*`) and `channel_settle` (0017's, plus the
 *   decision) are replaced; `channel_remember_lost_call` records a lost call,
 *   `channel_decide_lost_call` decides it.
 */
import { sql, type Kysely, type Migration } from "kysely";

export const channelLostCallsMigration: Migration = {
  async up(db: Kysely<unknown>) {
    await sql`
      ALTER TABLE payment_channels ADD COLUMN lost_payment_id text, ADD COLUMN lost_reservation_id text,
        ADD COLUMN lost_base numeric(78, 0)`.execute(db);
    // The lease's call, if it was a voucher call (its price reserved on its own row), becomes the lost call.
    await sql`
      CREATE FUNCTION channel_remember_lost_call(p_channel payment_channels) RETURNS payment_channels
      LANGUAGE plpgsql AS $$
      DECLARE
        ch payment_channels := p_channel;
      BEGIN
        IF ch.lease_payment_id IS NOT NULL AND EXISTS (
          SELECT 1 FROM budget_reservations b WHERE b.reservation_id = ch.lease_reservation_id AND b.state = 'reserved'
        ) THEN
          UPDATE payment_channels c SET lost_payment_id = ch.lease_payment_id, lost_reservation_id = ch.lease_reservation_id,
            lost_base = ch.charged
          WHERE c.channel_id = ch.channel_id RETURNING * INTO ch;
        END IF;
        RETURN ch;
      END
      $$`.execute(db);
    await sql`
      CREATE FUNCTION channel_decide_lost_call(p_channel payment_channels, p_charged_before numeric, p_now bigint)
      RETURNS void LANGUAGE plpgsql AS $$
      DECLARE
        lost budget_reservations;
        taken numeric;
      BEGIN
        IF p_channel.lost_payment_id IS NULL THEN RETURN; END IF;
        SELECT * INTO lost FROM budget_reservations b WHERE b.reservation_id = p_channel.lost_reservation_id AND b.state = 'reserved';
        IF p_charged_before > p_channel.lost_base AND lost.reservation_id IS NOT NULL THEN
          taken := least(p_charged_before - p_channel.lost_base, lost.amount);
          UPDATE budget_reservations SET state = 'committed', amount = taken, committed_at = p_now,
            tx_hash = 'channel:' || p_channel.channel_id || ':' || (p_channel.lost_base + taken)::text
          WHERE reservation_id = lost.reservation_id;
          UPDATE budget_reservations SET amount = amount + (lost.amount - taken) WHERE reservation_id = lost.drawn_from AND state = 'reserved';
          PERFORM channel_journal_step(p_channel.lost_payment_id, 'confirmed', p_channel, taken, NULL, p_now,
            jsonb_build_object('kind', 'voucher', 'charged', (p_channel.lost_base + taken)::text, 'lostCall', 'charged'));
        ELSIF p_charged_before > p_channel.lost_base THEN
          -- Taken, and its reservation already ended (expired, or its stalled instance gave it back): the journal says so.
          PERFORM channel_journal_step(p_channel.lost_payment_id, 'confirmed', p_channel, p_charged_before - p_channel.lost_base, NULL, p_now,
            jsonb_build_object('kind', 'voucher', 'charged', p_charged_before::text, 'lostCall', 'charged'));
        ELSE
          DELETE FROM budget_reservations WHERE reservation_id = lost.reservation_id;
          UPDATE budget_reservations SET amount = amount + lost.amount WHERE reservation_id = lost.drawn_from AND state = 'reserved';
          PERFORM channel_journal_step(p_channel.lost_payment_id, 'failed', p_channel, NULL, NULL, p_now,
            jsonb_build_object('kind', 'voucher', 'lostCall', 'not charged'));
        END IF;
        UPDATE payment_channels c SET lost_payment_id = NULL, lost_reservation_id = NULL, lost_base = NULL
        WHERE c.channel_id = p_channel.channel_id;
      END
      $$`.execute(db);
    // 0016's, plus: a voucher call whose lease is taken over is remembered as lost.
    await sql`
      CREATE OR REPLACE FUNCTION channel_acquire(
        p_channel_id text, p_payer text, p_receiver text, p_token text, p_network text, p_service_url text, p_config jsonb,
        p_price numeric, p_reservation_id text, p_lease_ms bigint,
        p_daily_limit numeric, p_budget_key text, p_budget_limit numeric, p_pool_key text, p_pool_limit numeric,
        p_window_ms bigint, p_ttl_ms bigint, p_payment_id text, p_journal jsonb
      ) RETURNS TABLE (r_status text, r_lease text, r_wait_ms bigint, r_room numeric, r_reason text, r_spent numeric, r_reserved numeric,
        r_limit numeric, r_state text, r_deposited numeric, r_charged numeric, r_signed_max numeric, r_signature text, r_total_claimed numeric)
      LANGUAGE plpgsql VOLATILE AS $$
      DECLARE
        ch payment_channels;
        now_ms bigint;
        used record;
        drawn text; drawn_scope text; drawn_pool text;
        room numeric;
        needs_deposit boolean;
        status text; lease text; wait_ms bigint; reason text; spent numeric; held numeric; cap numeric;
      BEGIN
        -- The order of reserve_in_budgets (payer, pool, caller), then the channel's row.
        PERFORM pg_advisory_xact_lock(hashtext('ledger:' || p_payer));
        IF p_pool_key IS NOT NULL THEN PERFORM pg_advisory_xact_lock(hashtext('pool:' || p_pool_key)); END IF;
        IF p_budget_key IS NOT NULL THEN PERFORM pg_advisory_xact_lock(hashtext('budget:' || p_budget_key)); END IF;
        now_ms := db_now_ms();
        SELECT * INTO ch FROM payment_channels c WHERE c.channel_id = p_channel_id FOR UPDATE;
        IF NOT FOUND THEN
          INSERT INTO payment_channels (channel_id, payer, receiver, token, network, service_url, config, state, opened_at, last_used_at, updated_at)
          VALUES (p_channel_id, p_payer, p_receiver, p_token, p_network, p_service_url, p_config, 'opening', now_ms, now_ms, now_ms)
          ON CONFLICT (channel_id) DO NOTHING;
          SELECT * INTO ch FROM payment_channels c WHERE c.channel_id = p_channel_id FOR UPDATE;
        END IF;
        IF ch.payer <> p_payer OR ch.receiver <> p_receiver OR ch.token <> p_token OR ch.network <> p_network THEN
          RAISE EXCEPTION 'channel % belongs to another payer, payee, token or network', p_channel_id;
        END IF;
        <<decide>>
        BEGIN
          IF ch.state = 'refunding' OR (ch.lease_id IS NOT NULL AND ch.lease_until > now_ms) THEN
            status := 'busy';
            wait_ms := greatest(coalesce(ch.lease_until, now_ms + 1000) - now_ms, 1);
            EXIT decide;
          END IF;
          needs_deposit := ch.state <> 'open' OR ch.deposited < ch.charged + p_price;
          -- A voucher is paid out of the deposit's reservation while it holds the price: the payer's sum is unchanged.
          IF NOT needs_deposit THEN
            SELECT b.reservation_id, b.budget_key, b.pool_key INTO drawn, drawn_scope, drawn_pool FROM budget_reservations b
            WHERE b.reservation_id = ch.deposit_reservation_id AND b.state = 'reserved' AND b.expires_at > now_ms AND b.amount >= p_price;
          END IF;
          status := 'refused';
          -- The payer's sum only matters when it grows: a deposit, or a price the deposit's reservation no longer holds.
          IF drawn IS NULL THEN
            used := budget_use('payer', p_payer, now_ms, p_window_ms);
            room := p_daily_limit - used.settled - used.reserved;
            IF room < p_price THEN
              reason := 'daily'; spent := used.settled; held := used.reserved; cap := p_daily_limit;
              EXIT decide;
            END IF;
          END IF;
          -- A caller's budget and the pool grow by the price unless the deposit's reservation already counts it there.
          IF p_pool_key IS NOT NULL AND (drawn IS NULL OR drawn_pool IS DISTINCT FROM p_pool_key) THEN
            used := budget_use('pool', p_pool_key, now_ms, p_window_ms);
            room := least(room, p_pool_limit - used.settled - used.reserved);
            IF used.settled + used.reserved + p_price > p_pool_limit THEN
              reason := 'pool'; spent := used.settled; held := used.reserved; cap := p_pool_limit;
              EXIT decide;
            END IF;
          END IF;
          IF p_budget_key IS NOT NULL AND (drawn IS NULL OR drawn_scope IS DISTINCT FROM p_budget_key) THEN
            used := budget_use('scope', p_budget_key, now_ms, p_window_ms);
            room := least(room, p_budget_limit - used.settled - used.reserved);
            IF used.settled + used.reserved + p_price > p_budget_limit THEN
              reason := 'scope'; spent := used.settled; held := used.reserved; cap := p_budget_limit;
              EXIT decide;
            END IF;
          END IF;
          -- An expired lease is taken over: its call's outcome is unknown (a crashed instance), so its row says pending.
          IF ch.lease_id IS NOT NULL AND ch.lease_payment_id IS NOT NULL THEN
            PERFORM channel_journal_step(ch.lease_payment_id, 'pending', ch, NULL, NULL, now_ms, jsonb_build_object('kind', 'voucher', 'leaseExpired', true));
          END IF;
          -- ... and it is left for the next settle to decide.
          IF ch.lease_id IS NOT NULL THEN ch := channel_remember_lost_call(ch); END IF;
          lease := gen_random_uuid()::text;
          IF needs_deposit THEN
            status := 'deposit-needed';
          ELSE
            status := 'voucher';
            UPDATE budget_reservations SET amount = amount - p_price WHERE reservation_id = drawn;
            INSERT INTO budget_reservations (reservation_id, payer, amount, state, tx_hash, expires_at, committed_at, budget_key, pool_key, drawn_from)
            VALUES (p_reservation_id, p_payer, p_price, 'reserved', NULL, now_ms + p_ttl_ms, NULL, p_budget_key, p_pool_key, drawn);
          END IF;
          UPDATE payment_channels c SET lease_id = lease, lease_until = now_ms + p_lease_ms, lease_reservation_id = p_reservation_id,
            lease_price = p_price, lease_payment_id = p_payment_id, last_used_at = now_ms, updated_at = now_ms
          WHERE c.channel_id = p_channel_id RETURNING * INTO ch;
          PERFORM channel_journal_step(p_payment_id, 'signing', ch, p_price, NULL, now_ms,
            jsonb_build_object('kind', 'voucher', 'cumulative', (ch.charged + p_price)::text),
            jsonb_build_object('resource', p_service_url) || p_journal);
        END decide;
        RETURN QUERY SELECT status, lease, wait_ms, room, reason, spent, held, cap,
          ch.state, ch.deposited, ch.charged, ch.signed_max, ch.signature, ch.total_claimed;
      END
      $$`.execute(db);
    // 0017's, plus: the lost call's decision.
    await sql`
      CREATE OR REPLACE FUNCTION channel_settle(
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
        PERFORM channel_decide_lost_call(ch, p_charged - p_charged_amount, now_ms);
        RETURN 'settled';
      END
      $$`.execute(db);
  },
};
