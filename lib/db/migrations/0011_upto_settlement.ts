import "server-only";
/**
 * Migration 0011: metered payments (x402 `upto`). The payer signs a ceiling and the service
 * settles what it used, so a payment has two amounts:
 *
 * - `payments.scheme` ('upto', or NULL for `exact`), `payments.ceiling` (what was signed, base
 *   units) and `payments.settlement_flag` (a settlement above the service's own metering): the
 *   history shows ceiling and settled amount side by side, and the reconciler reads the scheme
 *   to ask the chain the right question (Permit2's nonce bitmap, not EIP-3009's state).
 *   `payments.amount` stays the amount that counts: the ceiling until settlement, then what the
 *   chain shows moved.
 * - `record_payment_step` takes the three as optional parameters (defaults NULL). It is dropped
 *   and created again rather than overloaded: a call by name from an instance still running the
 *   previous release (23 arguments) then resolves to this one, where an overload would make it
 *   ambiguous.
 *
 * The ledger needs no function for its part: `budget_reservations.amount` shrinks to the settled
 * amount in the UPDATE that commits the row (lib/store/database-ledger.ts), stamped with
 * db_now_ms() like every commit, so the rest of the ceiling is free the moment it commits.
 */
import { sql, type Kysely, type Migration } from "kysely";

export const uptoSettlementMigration: Migration = {
  async up(db: Kysely<unknown>) {
    await sql`ALTER TABLE payments ADD COLUMN scheme text, ADD COLUMN ceiling numeric(78, 0), ADD COLUMN settlement_flag text`.execute(db);
    await sql`
      DROP FUNCTION record_payment_step(text, text, text, text, boolean, text, text, text, text, text, text, numeric, text, text, text,
        bigint, bigint, text, text, text, jsonb, bigint, jsonb)`.execute(db);
    await sql`
      CREATE FUNCTION record_payment_step(
        p_id text, p_status text, p_payer text, p_payer_kind text, p_payer_kind_given boolean,
        p_nonce text, p_request_key text, p_conversation_id text, p_service text, p_resource text,
        p_method text, p_amount numeric, p_asset text, p_network text, p_pay_to text,
        p_valid_after bigint, p_valid_before bigint, p_reason text, p_message text, p_tx_hash text,
        p_receipt jsonb, p_at bigint, p_details jsonb,
        p_scheme text DEFAULT NULL, p_ceiling numeric DEFAULT NULL, p_settlement_flag text DEFAULT NULL
      ) RETURNS void LANGUAGE plpgsql AS $$
      BEGIN
        INSERT INTO payments (id, status, payer, payer_kind, nonce, request_key, conversation_id, service, resource, method,
          amount, asset, network, pay_to, valid_after, valid_before, reason, message, tx_hash, receipt, created_at, updated_at,
          scheme, ceiling, settlement_flag)
        VALUES (p_id, p_status, p_payer, p_payer_kind, p_nonce, p_request_key, p_conversation_id, p_service, p_resource, p_method,
          p_amount, p_asset, p_network, p_pay_to, p_valid_after, p_valid_before, p_reason, p_message, p_tx_hash, p_receipt, p_at, p_at,
          p_scheme, p_ceiling, p_settlement_flag)
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
          tx_hash = coalesce(excluded.tx_hash, payments.tx_hash), receipt = coalesce(excluded.receipt, payments.receipt),
          scheme = coalesce(excluded.scheme, payments.scheme), ceiling = coalesce(excluded.ceiling, payments.ceiling),
          settlement_flag = coalesce(excluded.settlement_flag, payments.settlement_flag);
        INSERT INTO payment_events (payment_id, status, at, details) VALUES (p_id, p_status, p_at, p_details);
      END
      $$`.execute(db);
  },
};
