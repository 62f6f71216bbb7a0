import "server-only";
/**
 * Migration 0003: operator API keys (lib/access/api-keys.ts). `secret_hash` is the sha256 of the
 * token's secret, hex; the token itself is never stored. Few rows, read by primary key, so no
 * index.
 */
import { sql, type Kysely, type Migration } from "kysely";

export const apiKeysMigration: Migration = {
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
};
