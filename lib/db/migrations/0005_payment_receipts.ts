import "server-only";
/**
 * Migration 0005: the signed receipt of a delivered payment (offer-receipt extension) and the
 * agent's verdict on it, one jsonb per payment (lib/journal/recorded-receipt.ts): read with the
 * row, never queried by its contents, so no index.
 */
import { sql, type Kysely, type Migration } from "kysely";

export const paymentReceiptsMigration: Migration = {
  async up(db: Kysely<unknown>) {
    await sql`ALTER TABLE payments ADD COLUMN receipt jsonb`.execute(db);
  },
};
