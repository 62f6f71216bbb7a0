import "server-only";
/**
 * Migration 0002: a reservation in one round trip: the per-payer lock, the day's sums and the
 * insert run in one function call, its own transaction. Each statement inside a volatile PL/pgSQL
 * function takes a fresh snapshot, so the sums are read after the lock is held and see every
 * reservation committed before it (a single SQL statement would read its snapshot first).
 */
import { sql, type Kysely, type Migration } from "kysely";

export const reserveBudgetFunctionMigration: Migration = {
  async up(db: Kysely<unknown>) {
    await sql`
        CREATE FUNCTION reserve_budget(
          p_reservation_id text, p_payer text, p_amount numeric, p_daily_limit numeric,
          p_now bigint, p_window_ms bigint, p_ttl_ms bigint
        ) RETURNS TABLE (r_outcome text, r_settled numeric, r_reserved numeric)
        LANGUAGE plpgsql VOLATILE AS $$
        DECLARE
          held record;
          settled numeric;
          reserved numeric;
        BEGIN
          PERFORM pg_advisory_xact_lock(hashtext('ledger:' || p_payer));
          SELECT b.payer, b.amount INTO held FROM budget_reservations b WHERE b.reservation_id = p_reservation_id;
          IF FOUND THEN
            -- A repeated reservation is accepted once more only if it is the same one.
            IF held.payer <> p_payer OR held.amount <> p_amount THEN
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
          INSERT INTO budget_reservations (reservation_id, payer, amount, state, tx_hash, expires_at, committed_at)
          VALUES (p_reservation_id, p_payer, p_amount, 'reserved', NULL, p_now + p_ttl_ms, NULL);
          RETURN QUERY SELECT 'ok'::text, settled, reserved;
        END
        $$`.execute(db);
  },
};
