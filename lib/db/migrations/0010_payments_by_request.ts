import "server-only";
/**
 * Migration 0010: a retry whose first attempt stopped (its instance died) before recording the
 * purchase's outcome is told what the journal knows of that request's payments, by request key
 * (`PaymentJournal.ofRequest`).
 */
import { sql, type Kysely, type Migration } from "kysely";

export const paymentsByRequestMigration: Migration = {
  async up(db: Kysely<unknown>) {
    await sql`CREATE INDEX payments_by_request_key ON payments (request_key, created_at DESC) WHERE request_key IS NOT NULL`.execute(db);
  },
};
