import "server-only";
/**
 * Migration 0015: x402 batch-settlement channels (lib/channels). One row per channel: what
 * identifies it, what we and the server last agreed on, the deposit's open reservation in the
 * budgets, and the lease that serializes calls on it across instances. Each ledger call is one
 * function call (one round trip); this migration holds `channel_acquire` and
 * `channel_reserve_deposit`, 0016 the calls that end a lease.
 *
 * Budgets: a deposit is reserved like a payment (`reserve_in_budgets`); its reservation row is
 * the channel's `deposit_reservation_id` once confirmed (`pending_deposit_reservation_id`
 * until then). A voucher's reservation is moved out of it (`budget_reservations.drawn_from`
 * names the row it came from) and carries the current caller's scope and pool, so the payer's
 * sum stays the deposit while each caller's budget counts its own vouchers. A committed
 * voucher's `tx_hash` is `channel:<channel id>:<cumulative amount>`: a voucher has no
 * transaction of its own, and the daily sums count it like any commit.
 *
 * Journal (`payments` and `payment_events`, through `record_payment_step`): a channel fact is
 * a payment row with `scheme` 'batch-settlement', `pay_to` the receiver, `asset` the token,
 * `network`, `payer`, and no `nonce` (the EIP-3009 reconciler leaves it alone). The voucher's
 * row (id: the caller's payment id, else its reservation id) is written by `channel_acquire`
 * ('signing', amount = price, resource/service/request key/conversation when given) and moved
 * by `channel_settle` ('delivered', amount = the charge), `channel_abandon` ('failed' /
 * 'pending') or the acquire that takes over its expired lease ('pending'). The deposit's row (written by `channel_reserve_deposit`, 'signing', amount = the
 * deposit) becomes 'confirmed' with its transaction when a settle confirms it; the refund is a
 * row `refund:<channel id>:<tx>` ('confirmed', amount refunded, tx). Each event's `details`
 * hold `channelId`, `kind` (voucher, deposit, refund) and, for a voucher, `cumulative`.
 */
import { sql, type Kysely, type Migration } from "kysely";

export const paymentChannelsMigration: Migration = {
  async up(db: Kysely<unknown>) {
    await sql`
      CREATE TABLE payment_channels (
        channel_id text PRIMARY KEY CHECK (channel_id ~ '^0x[0-9a-f]{64}$'),
        payer text NOT NULL, receiver text NOT NULL, token text NOT NULL, network text NOT NULL,
        service_url text NOT NULL, config jsonb NOT NULL,
        deposited numeric(78, 0) NOT NULL DEFAULT 0, charged numeric(78, 0) NOT NULL DEFAULT 0,
        signed_max numeric(78, 0) NOT NULL DEFAULT 0, signature text, total_claimed numeric(78, 0) NOT NULL DEFAULT 0,
        state text NOT NULL CHECK (state IN ('opening', 'open', 'refunding', 'closed')),
        deposit_reservation_id text, pending_deposit_reservation_id text, deposit_payment_id text,
        lease_id text, lease_until bigint, lease_reservation_id text, lease_price numeric(78, 0), lease_payment_id text,
        opened_at bigint NOT NULL, last_used_at bigint NOT NULL, updated_at bigint NOT NULL
      )`.execute(db);
    await sql`CREATE INDEX payment_channels_by_payer ON payment_channels (payer, last_used_at DESC)`.execute(db);
    await sql`CREATE INDEX payment_channels_idle ON payment_channels (last_used_at) WHERE state = 'open'`.execute(db);
    await sql`ALTER TABLE budget_reservations ADD COLUMN drawn_from text`.execute(db);
    // What one budget holds: settled in the window, and reserved (unexpired). One query per column, each on its index.
    await sql`
      CREATE FUNCTION budget_use(p_column text, p_key text, p_now bigint, p_window_ms bigint, OUT settled numeric, OUT reserved numeric)
      LANGUAGE plpgsql STABLE AS $$
      BEGIN
        IF p_column = 'payer' THEN
          SELECT coalesce(sum(b.amount) FILTER (WHERE b.state = 'committed' AND b.committed_at > p_now - p_window_ms), 0),
                 coalesce(sum(b.amount) FILTER (WHERE b.state = 'reserved' AND b.expires_at > p_now), 0)
          INTO settled, reserved FROM budget_reservations b WHERE b.payer = p_key;
        ELSIF p_column = 'pool' THEN
          SELECT coalesce(sum(b.amount) FILTER (WHERE b.state = 'committed' AND b.committed_at > p_now - p_window_ms), 0),
                 coalesce(sum(b.amount) FILTER (WHERE b.state = 'reserved' AND b.expires_at > p_now), 0)
          INTO settled, reserved FROM budget_reservations b WHERE b.pool_key = p_key;
        ELSE
          SELECT coalesce(sum(b.amount) FILTER (WHERE b.state = 'committed' AND b.committed_at > p_now - p_window_ms), 0),
                 coalesce(sum(b.amount) FILTER (WHERE b.state = 'reserved' AND b.expires_at > p_now), 0)
          INTO settled, reserved FROM budget_reservations b WHERE b.budget_key = p_key;
        END IF;
      END
      $$`.execute(db);
    // One journal step of a channel fact (see above); `p_extra` fills the columns a first step knows (a
    // later step leaves them out, so they keep their value).
    await sql`
      CREATE FUNCTION channel_journal_step(p_id text, p_status text, p_channel payment_channels, p_amount numeric, p_tx text,
        p_at bigint, p_details jsonb, p_extra jsonb DEFAULT '{}'::jsonb) RETURNS void LANGUAGE plpgsql AS $$
      BEGIN
        PERFORM record_payment_step(p_id => p_id, p_status => p_status, p_payer => p_channel.payer,
          p_payer_kind => coalesce(p_extra->>'payerKind', 'agent'), p_payer_kind_given => p_extra ? 'payerKind', p_nonce => NULL,
          p_request_key => p_extra->>'requestKey', p_conversation_id => p_extra->>'conversationId', p_service => p_extra->>'service',
          p_resource => p_extra->>'resource', p_method => NULL, p_amount => p_amount, p_asset => p_channel.token,
          p_network => p_channel.network, p_pay_to => p_channel.receiver, p_valid_after => NULL, p_valid_before => NULL, p_reason => NULL,
          p_message => NULL, p_tx_hash => p_tx, p_receipt => NULL, p_at => p_at,
          p_details => p_details || jsonb_build_object('channelId', p_channel.channel_id), p_scheme => 'batch-settlement');
      END
      $$`.execute(db);
    await sql`
      CREATE FUNCTION channel_acquire(
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
    // Under the lease: the deposit reserved as a payment of its amount would be (reserve_in_budgets).
    await sql`
      CREATE FUNCTION channel_reserve_deposit(
        p_channel_id text, p_lease text, p_payer text, p_amount numeric, p_reservation_id text,
        p_daily_limit numeric, p_budget_key text, p_budget_limit numeric, p_pool_key text, p_pool_limit numeric,
        p_window_ms bigint, p_ttl_ms bigint, p_payment_id text, p_journal jsonb
      ) RETURNS TABLE (r_outcome text, r_settled numeric, r_reserved numeric)
      LANGUAGE plpgsql VOLATILE AS $$
      DECLARE
        ch payment_channels;
        outcome record;
      BEGIN
        PERFORM pg_advisory_xact_lock(hashtext('ledger:' || p_payer));
        IF p_pool_key IS NOT NULL THEN PERFORM pg_advisory_xact_lock(hashtext('pool:' || p_pool_key)); END IF;
        IF p_budget_key IS NOT NULL THEN PERFORM pg_advisory_xact_lock(hashtext('budget:' || p_budget_key)); END IF;
        SELECT * INTO ch FROM payment_channels c WHERE c.channel_id = p_channel_id FOR UPDATE;
        IF NOT FOUND OR ch.payer <> p_payer THEN RAISE EXCEPTION 'channel % of payer % is unknown', p_channel_id, p_payer; END IF;
        IF ch.lease_id IS DISTINCT FROM p_lease THEN
          RETURN QUERY SELECT 'lease-lost'::text, 0::numeric, 0::numeric;
          RETURN;
        END IF;
        SELECT * INTO outcome FROM reserve_in_budgets(p_reservation_id, p_payer, p_amount, p_daily_limit, p_budget_key, p_budget_limit,
          p_pool_key, p_pool_limit, NULL, p_window_ms, p_ttl_ms);
        IF outcome.r_outcome = 'ok' THEN
          UPDATE payment_channels c SET pending_deposit_reservation_id = p_reservation_id, deposit_payment_id = p_payment_id,
            updated_at = db_now_ms() WHERE c.channel_id = p_channel_id RETURNING * INTO ch;
          PERFORM channel_journal_step(p_payment_id, 'signing', ch, p_amount, NULL, db_now_ms(), jsonb_build_object('kind', 'deposit'),
            jsonb_build_object('resource', ch.service_url) || p_journal);
        END IF;
        RETURN QUERY SELECT outcome.r_outcome, outcome.r_settled, outcome.r_reserved;
      END
      $$`.execute(db);
  },
};
