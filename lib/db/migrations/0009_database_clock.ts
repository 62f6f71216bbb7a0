import "server-only";
/**
 * Migration 0009: the database's clock decides every window.
 *
 * Before, each instance passed its own `Date.now()` into the reservation functions and wrote
 * its own clock into `committed_at` and `expires_at`. A reservation read "now" before its
 * statement ran; a payment another instance committed in between carried a later
 * `committed_at`, fell outside both "reserved" and "committed at or before now", and one more
 * payment fit under the cap. Clock skew between instances widened the same hole.
 *
 * Now:
 * - `db_now_ms()` is the database's time (`clock_timestamp()`, read when called, not when the
 *   transaction began), and every reservation, commit, expiry and claim is stamped with it.
 * - One function, `reserve_in_budgets`, checks the payer's cap, the pool and the caller's
 *   budget (each optional but the payer's) under advisory locks taken payer, pool, caller. It
 *   reads the clock after the locks are held, so every row committed before it ran is older.
 * - A committed row counts from its commit on, with no upper bound: even a clock passed in
 *   by a test cannot make a committed row invisible.
 * - `p_now` stays as a parameter for tests of the window (a day passing); production passes
 *   NULL. The three older functions now delegate here, so an instance of the previous
 *   release that is still running during a deployment gets the fixed check too.
 * - `idempotency_keys.holder` says which instance and request hold a claim (shown to the
 *   client that is refused, and to an operator reading the table).
 */
import { sql, type Kysely, type Migration } from "kysely";

export const databaseClockMigration: Migration = {
  async up(db: Kysely<unknown>) {
    await sql`
      CREATE FUNCTION db_now_ms() RETURNS bigint LANGUAGE sql VOLATILE AS $$
        SELECT (extract(epoch FROM clock_timestamp()) * 1000)::bigint
      $$`.execute(db);
    await sql`ALTER TABLE idempotency_keys ADD COLUMN holder text`.execute(db);
    await sql`
      CREATE FUNCTION reserve_in_budgets(
        p_reservation_id text, p_payer text, p_amount numeric, p_daily_limit numeric,
        p_budget_key text, p_budget_limit numeric, p_pool_key text, p_pool_limit numeric,
        p_now bigint, p_window_ms bigint, p_ttl_ms bigint
      ) RETURNS TABLE (r_outcome text, r_settled numeric, r_reserved numeric)
      LANGUAGE plpgsql VOLATILE AS $$
      DECLARE
        held record;
        settled numeric;
        reserved numeric;
        now_ms bigint;
      BEGIN
        PERFORM pg_advisory_xact_lock(hashtext('ledger:' || p_payer));
        IF p_pool_key IS NOT NULL THEN PERFORM pg_advisory_xact_lock(hashtext('pool:' || p_pool_key)); END IF;
        IF p_budget_key IS NOT NULL THEN PERFORM pg_advisory_xact_lock(hashtext('budget:' || p_budget_key)); END IF;
        -- Read after the locks: whatever committed before this point is in the past of now_ms.
        now_ms := coalesce(p_now, db_now_ms());
        SELECT b.payer, b.amount, b.budget_key, b.pool_key INTO held FROM budget_reservations b WHERE b.reservation_id = p_reservation_id;
        IF FOUND THEN
          IF held.payer <> p_payer OR held.amount <> p_amount OR held.budget_key IS DISTINCT FROM p_budget_key OR held.pool_key IS DISTINCT FROM p_pool_key THEN
            RETURN QUERY SELECT 'conflict'::text, 0::numeric, 0::numeric;
          ELSE
            RETURN QUERY SELECT 'ok'::text, 0::numeric, 0::numeric;
          END IF;
          RETURN;
        END IF;
        SELECT
          coalesce(sum(b.amount) FILTER (WHERE b.state = 'committed' AND b.committed_at > now_ms - p_window_ms), 0),
          coalesce(sum(b.amount) FILTER (WHERE b.state = 'reserved' AND b.expires_at > now_ms), 0)
        INTO settled, reserved
        FROM budget_reservations b WHERE b.payer = p_payer;
        IF settled + reserved + p_amount > p_daily_limit THEN
          RETURN QUERY SELECT 'daily'::text, settled, reserved;
          RETURN;
        END IF;
        IF p_pool_key IS NOT NULL THEN
          SELECT
            coalesce(sum(b.amount) FILTER (WHERE b.state = 'committed' AND b.committed_at > now_ms - p_window_ms), 0),
            coalesce(sum(b.amount) FILTER (WHERE b.state = 'reserved' AND b.expires_at > now_ms), 0)
          INTO settled, reserved
          FROM budget_reservations b WHERE b.pool_key = p_pool_key;
          IF settled + reserved + p_amount > p_pool_limit THEN
            RETURN QUERY SELECT 'pool'::text, settled, reserved;
            RETURN;
          END IF;
        END IF;
        IF p_budget_key IS NOT NULL THEN
          SELECT
            coalesce(sum(b.amount) FILTER (WHERE b.state = 'committed' AND b.committed_at > now_ms - p_window_ms), 0),
            coalesce(sum(b.amount) FILTER (WHERE b.state = 'reserved' AND b.expires_at > now_ms), 0)
          INTO settled, reserved
          FROM budget_reservations b WHERE b.budget_key = p_budget_key;
          IF settled + reserved + p_amount > p_budget_limit THEN
            RETURN QUERY SELECT 'scope'::text, settled, reserved;
            RETURN;
          END IF;
        END IF;
        INSERT INTO budget_reservations (reservation_id, payer, amount, state, tx_hash, expires_at, committed_at, budget_key, pool_key)
        VALUES (p_reservation_id, p_payer, p_amount, 'reserved', NULL, now_ms + p_ttl_ms, NULL, p_budget_key, p_pool_key);
        RETURN QUERY SELECT 'ok'::text, settled, reserved;
      END
      $$`.execute(db);
    // The previous release's entry points, kept for instances still running it mid-deployment.
    await sql`
      CREATE OR REPLACE FUNCTION reserve_budget(
        p_reservation_id text, p_payer text, p_amount numeric, p_daily_limit numeric,
        p_now bigint, p_window_ms bigint, p_ttl_ms bigint
      ) RETURNS TABLE (r_outcome text, r_settled numeric, r_reserved numeric)
      LANGUAGE sql VOLATILE AS $$
        SELECT * FROM reserve_in_budgets(p_reservation_id, p_payer, p_amount, p_daily_limit, NULL, NULL, NULL, NULL, NULL, p_window_ms, p_ttl_ms)
      $$`.execute(db);
    await sql`
      CREATE OR REPLACE FUNCTION reserve_scoped_budget(
        p_reservation_id text, p_payer text, p_amount numeric, p_daily_limit numeric,
        p_budget_key text, p_budget_limit numeric,
        p_now bigint, p_window_ms bigint, p_ttl_ms bigint
      ) RETURNS TABLE (r_outcome text, r_settled numeric, r_reserved numeric)
      LANGUAGE sql VOLATILE AS $$
        SELECT * FROM reserve_in_budgets(p_reservation_id, p_payer, p_amount, p_daily_limit, p_budget_key, p_budget_limit, NULL, NULL, NULL, p_window_ms, p_ttl_ms)
      $$`.execute(db);
    await sql`
      CREATE OR REPLACE FUNCTION reserve_pooled_budget(
        p_reservation_id text, p_payer text, p_amount numeric, p_daily_limit numeric,
        p_budget_key text, p_budget_limit numeric, p_pool_key text, p_pool_limit numeric,
        p_now bigint, p_window_ms bigint, p_ttl_ms bigint
      ) RETURNS TABLE (r_outcome text, r_settled numeric, r_reserved numeric)
      LANGUAGE sql VOLATILE AS $$
        SELECT * FROM reserve_in_budgets(p_reservation_id, p_payer, p_amount, p_daily_limit, p_budget_key, p_budget_limit, p_pool_key, p_pool_limit, NULL, p_window_ms, p_ttl_ms)
      $$`.execute(db);
  },
};
