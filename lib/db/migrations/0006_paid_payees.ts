import "server-only";
/**
 * Migration 0006: "Has this payer paid this payee before?" is asked before each payment (a first
 * payment to a payee is flagged to the person); this keeps it an index lookup however long the
 * history.
 */
import { sql, type Kysely, type Migration } from "kysely";

export const paidPayeesMigration: Migration = {
  async up(db: Kysely<unknown>) {
    await sql`CREATE INDEX payments_paid_payees ON payments (payer, lower(pay_to)) WHERE status IN ('confirmed', 'delivered')`.execute(db);
  },
};
