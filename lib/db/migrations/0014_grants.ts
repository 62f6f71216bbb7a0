import "server-only";
/**
 * Migration 0014: grants, budgets a user signed once as a Permit2 allowance to the agent's
 * relayer (lib/grants). One row per submitted permit; a wallet's nonce is used once, so the same
 * permit cannot become two grants. `secret_hash` is the sha256 of the grant token's secret; the
 * token is never stored. What a grant spent is not here: it is the ledger's scope `grant:<id>`.
 */
import { sql, type Kysely, type Migration } from "kysely";

export const grantsMigration: Migration = {
  async up(db: Kysely<unknown>) {
    await sql`
      CREATE TABLE grants (
        id text PRIMARY KEY,
        wallet_address text NOT NULL CHECK (wallet_address ~ '^0x[0-9a-f]{40}$'),
        amount numeric(78, 0) NOT NULL CHECK (amount > 0),
        expires_at bigint NOT NULL,
        nonce numeric(78, 0) NOT NULL,
        permit_transaction text NOT NULL,
        secret_hash text NOT NULL CHECK (secret_hash ~ '^[0-9a-f]{64}$'),
        created_at bigint NOT NULL,
        revoked_at bigint,
        replaced_by text,
        UNIQUE (wallet_address, nonce)
      )`.execute(db);
    await sql`CREATE INDEX grants_by_wallet ON grants (wallet_address, created_at DESC)`.execute(db);
  },
};
