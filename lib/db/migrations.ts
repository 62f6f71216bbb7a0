import "server-only";
/**
 * The database schema, as versioned migrations applied at start (in order, each once, under
 * Kysely's migration lock so two instances starting together do not race). A new migration is
 * a new entry, in a module of its own from 0008 on; an applied one is never edited.
 *
 * Amounts are USDC base units in numeric(78,0); times are epoch milliseconds in bigint, taken
 * from the database's own clock (`db_now_ms()`, migration 0009) whenever they decide money, so
 * the clocks of many instances never meet in one comparison. Tests may still pass a time.
 */
import { sql, type Kysely, type Migration, type MigrationProvider } from "kysely";
import { databaseClockMigration } from "./database-clock-migration";
import { pooledBudgetMigration } from "./pooled-budget-migration";
import { paymentsByRequestMigration } from "./payments-by-request-migration";
import { uptoSettlementMigration } from "./upto-settlement-migration";
import { listingEvidenceMigration } from "./listing-evidence-migration";

const migrations: Record<string, Migration> = {
  "0001_payment_journal": {
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
  },
  // A reservation in one round trip: the per-payer lock, the day's sums and the insert run in
  // one function call, its own transaction. Each statement inside a volatile PL/pgSQL function
  // takes a fresh snapshot, so the sums are read after the lock is held and see every
  // reservation committed before it (a single SQL statement would read its snapshot first).
  "0002_reserve_budget_function": {
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
  },
  // Operator API keys (lib/access/api-keys.ts). `secret_hash` is the sha256 of the token's
  // secret, hex; the token itself is never stored. Few rows, read by primary key, so no index.
  "0003_api_keys": {
    async up(db: Kysely<unknown>) {
      await sql`
        CREATE TABLE api_keys (
          id text PRIMARY KEY,
          name text NOT NULL,
          secret_hash text NOT NULL CHECK (secret_hash ~ '^[0-9a-f]{64}$'),
          per_payment numeric(78, 0) NOT NULL CHECK (per_payment >= 0),
          per_request numeric(78, 0) NOT NULL CHECK (per_request >= 0),
          daily numeric(78, 0) NOT NULL CHECK (daily >= 0),
          agent_wallet boolean NOT NULL,
          created_at bigint NOT NULL,
          expires_at bigint,
          revoked_at bigint
        )`.execute(db);
    },
  },
  // Budgets per caller (lib/access): a reservation may also count against a named caller's
  // own daily budget (`budget_key`, e.g. "key:<id>"), checked in the same statement as the
  // payer's. Locks are taken payer first, then budget key, always in that order, so two
  // reservations can never wait on each other.
  "0004_budget_scopes": {
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
  },
  // The signed receipt of a delivered payment (offer-receipt extension) and the agent's verdict
  // on it, one jsonb per payment (lib/journal/recorded-receipt.ts): read with the row, never
  // queried by its contents, so no index.
  "0005_payment_receipts": {
    async up(db: Kysely<unknown>) {
      await sql`ALTER TABLE payments ADD COLUMN receipt jsonb`.execute(db);
    },
  },
  // "Has this payer paid this payee before?" is asked before each payment (a first payment to
  // a payee is flagged to the person); this keeps it an index lookup however long the history.
  "0006_paid_payees": {
    async up(db: Kysely<unknown>) {
      await sql`CREATE INDEX payments_paid_payees ON payments (payer, lower(pay_to)) WHERE status IN ('confirmed', 'delivered')`.execute(db);
    },
  },
  // One journal step (lib/journal/database-journal.ts) as one call: the payment's row upserted,
  // its event appended. As a PL/pgSQL function the two statements' plans are prepared once per
  // connection; sent as text, Postgres parsed and planned the upsert at every step (measured on
  // the embedded database: 0.63 ms of CPU per step as text, 0.42 ms through the function).
  // A column the step leaves out (NULL) keeps its stored value.
  "0007_record_payment_step": {
    async up(db: Kysely<unknown>) {
      await sql`
        CREATE FUNCTION record_payment_step(
          p_id text, p_status text, p_payer text, p_payer_kind text, p_payer_kind_given boolean,
          p_nonce text, p_request_key text, p_conversation_id text, p_service text, p_resource text,
          p_method text, p_amount numeric, p_asset text, p_network text, p_pay_to text,
          p_valid_after bigint, p_valid_before bigint, p_reason text, p_message text, p_tx_hash text,
          p_receipt jsonb, p_at bigint, p_details jsonb
        ) RETURNS void LANGUAGE plpgsql AS $$
        BEGIN
          INSERT INTO payments (id, status, payer, payer_kind, nonce, request_key, conversation_id, service, resource, method,
            amount, asset, network, pay_to, valid_after, valid_before, reason, message, tx_hash, receipt, created_at, updated_at)
          VALUES (p_id, p_status, p_payer, p_payer_kind, p_nonce, p_request_key, p_conversation_id, p_service, p_resource, p_method,
            p_amount, p_asset, p_network, p_pay_to, p_valid_after, p_valid_before, p_reason, p_message, p_tx_hash, p_receipt, p_at, p_at)
          ON CONFLICT (id) DO UPDATE SET
            status = excluded.status,
            updated_at = excluded.updated_at,
            payer = coalesce(nullif(excluded.payer, ''), payments.payer),
            payer_kind = CASE WHEN p_payer_kind_given THEN excluded.payer_kind ELSE payments.payer_kind END,
            nonce = coalesce(excluded.nonce, payments.nonce), request_key = coalesce(excluded.request_key, payments.request_key),
            conversation_id = coalesce(excluded.conversation_id, payments.conversation_id), service = coalesce(excluded.service, payments.service),
            resource = coalesce(excluded.resource, payments.resource), method = coalesce(excluded.method, payments.method),
            amount = coalesce(excluded.amount, payments.amount), asset = coalesce(excluded.asset, payments.asset),
            network = coalesce(excluded.network, payments.network), pay_to = coalesce(excluded.pay_to, payments.pay_to),
            valid_after = coalesce(excluded.valid_after, payments.valid_after), valid_before = coalesce(excluded.valid_before, payments.valid_before),
            reason = coalesce(excluded.reason, payments.reason), message = coalesce(excluded.message, payments.message),
            tx_hash = coalesce(excluded.tx_hash, payments.tx_hash), receipt = coalesce(excluded.receipt, payments.receipt);
          INSERT INTO payment_events (payment_id, status, at, details) VALUES (p_id, p_status, p_at, p_details);
        END
        $$`.execute(db);
    },
  },
};

export const migrationProvider: MigrationProvider = {
  getMigrations: async () => ({
    ...migrations,
    "0008_pooled_budget": pooledBudgetMigration,
    "0009_database_clock": databaseClockMigration,
    "0010_payments_by_request": paymentsByRequestMigration,
    "0011_upto_settlement": uptoSettlementMigration,
    "0012_listing_evidence": listingEvidenceMigration,
  }),
};
