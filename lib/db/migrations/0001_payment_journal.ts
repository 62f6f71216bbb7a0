import "server-only";
/**
 * Migration 0001: the first schema: the payment journal (`payments`, one row per payment, and
 * `payment_events`, every step it took), the ledger's `budget_reservations` and the
 * `idempotency_keys` a repeated request is answered from.
 */
import { sql, type Kysely, type Migration } from "kysely";

export const paymentJournalMigration: Migration = {
  async up(db: Kysely<unknown>) {
    await sql`
        CREATE TABLE payments (
          id text PRIMARY KEY,
          nonce text,
          payer text NOT NULL,
          payer_kind text NOT NULL,
          request_key text,
          conversation_id text,
          service text,
          resource text,
          method text,
          amount numeric(78, 0),
          asset text,
          network text,
          pay_to text,
          valid_after bigint,
          valid_before bigint,
          status text NOT NULL,
          reason text,
          message text,
          tx_hash text,
          created_at bigint NOT NULL,
          updated_at bigint NOT NULL
        )`.execute(db);
    await sql`CREATE INDEX payments_by_payer ON payments (payer, created_at DESC)`.execute(db);
    await sql`CREATE INDEX payments_unsettled ON payments (status) WHERE status NOT IN ('delivered', 'failed', 'confirmed')`.execute(db);
    await sql`
        CREATE TABLE payment_events (
          seq bigserial PRIMARY KEY,
          payment_id text NOT NULL REFERENCES payments (id),
          status text NOT NULL,
          at bigint NOT NULL,
          details jsonb NOT NULL
        )`.execute(db);
    await sql`CREATE INDEX payment_events_by_payment ON payment_events (payment_id, seq)`.execute(db);
    await sql`
        CREATE TABLE budget_reservations (
          reservation_id text PRIMARY KEY,
          payer text NOT NULL,
          amount numeric(78, 0) NOT NULL,
          state text NOT NULL CHECK (state IN ('reserved', 'committed')),
          tx_hash text,
          expires_at bigint NOT NULL,
          committed_at bigint
        )`.execute(db);
    await sql`CREATE INDEX budget_reservations_by_payer ON budget_reservations (payer, state)`.execute(db);
    await sql`
        CREATE TABLE idempotency_keys (
          key text PRIMARY KEY,
          state text NOT NULL CHECK (state IN ('pending', 'complete')),
          record jsonb,
          expires_at bigint NOT NULL
        )`.execute(db);
  },
};
