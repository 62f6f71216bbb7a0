import "server-only";
/**
 * Migration 0008: a budget several callers share. Under `signed-in` access any wallet that
 * signs in may spend a little of the agent wallet; each has its own small budget (its scope),
 * and all of them together a daily cap (the pool), so a crowd of fresh wallets cannot drain
 * the agent wallet. The payer's cap, the caller's budget and the pool are checked and the
 * reservation made in one statement under advisory locks taken in one order (payer, pool,
 * caller), so parallel requests from any number of instances cannot pass any of them.
 */
import { sql, type Kysely, type Migration } from "kysely";

export const pooledBudgetMigration: Migration = {
  async up(db: Kysely<unknown>) {
    await sql`ALTER TABLE budget_reservations ADD COLUMN pool_key text`.execute(db);
    await sql`CREATE INDEX budget_reservations_by_pool_key ON budget_reservations (pool_key, state) WHERE pool_key IS NOT NULL`.execute(db);
    // A committed row counts from its commit time on, with no upper bound: a payment another
    // instance committed after this caller read its clock still counts (the rows' times come
    // from many clocks; a row never falls between "reserved" and "committed").
    await sql`
      CREATE FUNCTION reserve_pooled_budget(
        p_reservation_id text, p_payer text, p_amount numeric, p_daily_limit numeric,
        p_budget_key text, p_budget_limit numeric, p_pool_key text, p_pool_limit numeric,
        p_now bigint, p_window_ms bigint, p_ttl_ms bigint
      ) RETURNS TABLE (r_outcome text, r_settled numeric, r_reserved numeric)
      LANGUAGE plpgsql VOLATILE AS $$
      DECLARE
        held record;
        settled numeric;
        reserved numeric;
      BEGIN
        PERFORM pg_advisory_xact_lock(hashtext('ledger:' || p_payer));
        PERFORM pg_advisory_xact_lock(hashtext('pool:' || p_pool_key));
        PERFORM pg_advisory_xact_lock(hashtext('budget:' || p_budget_key));
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
          coalesce(sum(b.amount) FILTER (WHERE b.state = 'committed' AND b.committed_at > p_now - p_window_ms), 0),
          coalesce(sum(b.amount) FILTER (WHERE b.state = 'reserved' AND b.expires_at > p_now), 0)
        INTO settled, reserved
        FROM budget_reservations b WHERE b.payer = p_payer;
        IF settled + reserved + p_amount > p_daily_limit THEN
          RETURN QUERY SELECT 'daily'::text, settled, reserved;
          RETURN;
        END IF;
        SELECT
          coalesce(sum(b.amount) FILTER (WHERE b.state = 'committed' AND b.committed_at > p_now - p_window_ms), 0),
          coalesce(sum(b.amount) FILTER (WHERE b.state = 'reserved' AND b.expires_at > p_now), 0)
        INTO settled, reserved
        FROM budget_reservations b WHERE b.pool_key = p_pool_key;
        IF settled + reserved + p_amount > p_pool_limit THEN
          RETURN QUERY SELECT 'pool'::text, settled, reserved;
          RETURN;
        END IF;
        SELECT
          coalesce(sum(b.amount) FILTER (WHERE b.state = 'committed' AND b.committed_at > p_now - p_window_ms), 0),
          coalesce(sum(b.amount) FILTER (WHERE b.state = 'reserved' AND b.expires_at > p_now), 0)
        INTO settled, reserved
        FROM budget_reservations b WHERE b.budget_key = p_budget_key;
        IF settled + reserved + p_amount > p_budget_limit THEN
          RETURN QUERY SELECT 'scope'::text, settled, reserved;
          RETURN;
        END IF;
        INSERT INTO budget_reservations (reservation_id, payer, amount, state, tx_hash, expires_at, committed_at, budget_key, pool_key)
        VALUES (p_reservation_id, p_payer, p_amount, 'reserved', NULL, p_now + p_ttl_ms, NULL, p_budget_key, p_pool_key);
        RETURN QUERY SELECT 'ok'::text, settled, reserved;
      END
      $$`.execute(db);
  },
};
