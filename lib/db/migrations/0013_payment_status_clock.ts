import "server-only";
/**
 * Migration 0013: when a payment's status last changed, on the database's clock.
 *
 * `payments.updated_at` is the writing instance's own clock (the journal step's `at`). Discovery
 * evidence judges "settled and still not delivered after 2 minutes" against `db_now_ms()`, so an
 * instance whose clock runs behind would make a payment settled a second ago look abandoned
 * (and one whose clock runs ahead would hide a real failure). `status_at` is written by the
 * database itself, on insert and whenever `status` changes, by a trigger: every writer (this
 * release's `record_payment_step`, an older instance mid-deployment, an operator's fix) is
 * stamped alike, and the comparison is the database's clock against itself. Rows from before
 * take their `updated_at`.
 */
import { sql, type Kysely, type Migration } from "kysely";

export const paymentStatusClockMigration: Migration = {
  async up(db: Kysely<unknown>) {
    await sql`ALTER TABLE payments ADD COLUMN status_at bigint`.execute(db);
    await sql`UPDATE payments SET status_at = updated_at`.execute(db);
    await sql`
      CREATE FUNCTION payments_status_clock() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF TG_OP = 'INSERT' OR NEW.status IS DISTINCT FROM OLD.status THEN
          NEW.status_at := db_now_ms();
        END IF;
        RETURN NEW;
      END
      $$`.execute(db);
    await sql`CREATE TRIGGER payments_status_clock BEFORE INSERT OR UPDATE ON payments FOR EACH ROW EXECUTE FUNCTION payments_status_clock()`.execute(db);
  },
};
