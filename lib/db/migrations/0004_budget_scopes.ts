import "server-only";
/**
 * Migration 0004: budgets per caller (lib/access): a reservation may also count against a named
 * caller's own daily budget (`budget_key`, e.g. "key:<id>"), checked in the same statement as the
 * payer's. Locks are taken payer first, then budget key, always in that order, so two reservations
 * can never wait on each other.
 */
import { sql, type Kysely, type Migration } from "kysely";

export const budgetScopesMigration: Migration = {
  async up(db: Kysely<unknown>) {
    await sql`ALTER TABLE budget_reservations ADD COLUMN budget_key text`.execute(db);
    await sql`CREATE INDEX budget_reservations_by_budget_key ON budget_reservations (budget_key, state) WHERE budget_key IS NOT NULL`.execute(db);
    await sql`
        CREATE FUNCTION reserve_scoped_budget(
          p_reservation_id text, p_payer text, p_amount numeric, p_daily_limit numeric,
          p_budget_key text, p_budget_limit numeric,
          p_now bigint, p_window_ms bigint, p_ttl_ms bigint
        ) RETURNS TABLE (r_outcome text, r_settled numeric, r_reserved numeric)
        LANGUAGE plpgsql VOLATILE AS $$
        DECLARE
          held record;
          settled numeric;
          reserved numeric;
        BEGIN
          PERFORM pg_advisory_xact_lock(hashtext('ledger:' || p_payer));
          PERFORM pg_advisory_xact_lock(hashtext('budget:' || p_budget_key));
          SELECT b.payer, b.amount, b.budget_key INTO held FROM budget_reservations b WHERE b.reservation_id = p_reservation_id;
          IF FOUND THEN
            IF held.payer <> p_payer OR held.amount <> p_amount OR held.budget_key IS DISTINCT FROM p_budget_key THEN
              RETURN QUERY SELECT 'conflict'::text, 0::numeric, 0::numeric;
            ELSE
              RETURN QUERY SELECT 'ok'::text, 0::numeric, 0::numeric;
            END IF;
            RETURN;
          END IF;
          SELECT
            coalesce(sum(b.amount) FILTER (WHERE b.state = 'committed' AND b.committed_at > p_now - p_window_ms AND b.committed_at <= p_now), 0),
            coalesce(sum(b.amount) FILTER (WHERE b.state = 'reserved' AND b.expires_at > p_now), 0)
          INTO settled, reserved
          FROM budget_reservations b WHERE b.payer = p_payer;
          IF settled + reserved + p_amount > p_daily_limit THEN
            RETURN QUERY SELECT 'daily'::text, settled, reserved;
            RETURN;
          END IF;
          SELECT
            coalesce(sum(b.amount) FILTER (WHERE b.state = 'committed' AND b.committed_at > p_now - p_window_ms AND b.committed_at <= p_now), 0),
            coalesce(sum(b.amount) FILTER (WHERE b.state = 'reserved' AND b.expires_at > p_now), 0)
          INTO settled, reserved
          FROM budget_reservations b WHERE b.budget_key = p_budget_key;
          IF settled + reserved + p_amount > p_budget_limit THEN
            RETURN QUERY SELECT 'scope'::text, settled, reserved;
            RETURN;
          END IF;
          INSERT INTO budget_reservations (reservation_id, payer, amount, state, tx_hash, expires_at, committed_at, budget_key)
          VALUES (p_reservation_id, p_payer, p_amount, 'reserved', NULL, p_now + p_ttl_ms, NULL, p_budget_key);
          RETURN QUERY SELECT 'ok'::text, settled, reserved;
        END
        $$`.execute(db);
  },
};
