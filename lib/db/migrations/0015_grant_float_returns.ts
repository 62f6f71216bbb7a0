import "server-only";
/**
 * Migration 0015: returning an ended grant's float (lib/grants/grant-float.ts).
 *
 * - `float_claimed_until` / `float_claimed_by`: the claim that lets one instance, and only one,
 *   return a grant's float at a time (revoke, the end of a turn, the reconciler's sweep). Taken
 *   and lapsed on the database's clock, released when the return is done.
 * - `float_returned`: what went back to the wallet so far, shown in the grant's view.
 * - `swept_at`: set once the grant has ended, nothing of its payer account is in flight and the
 *   account holds nothing: the sweep looks at the grant no more.
 * - `grants_to_sweep`: the sweep's selection, the wallet's newest grants not yet swept.
 */
import { sql, type Kysely, type Migration } from "kysely";

export const grantFloatReturnsMigration: Migration = {
  async up(db: Kysely<unknown>) {
    await sql`
      ALTER TABLE grants
        ADD COLUMN float_claimed_until bigint NOT NULL DEFAULT 0,
        ADD COLUMN float_claimed_by text,
        ADD COLUMN float_returned numeric(78, 0) NOT NULL DEFAULT 0 CHECK (float_returned >= 0),
        ADD COLUMN swept_at bigint`.execute(db);
    await sql`CREATE INDEX grants_to_sweep ON grants (expires_at) WHERE swept_at IS NULL AND replaced_by IS NULL`.execute(db);
  },
};
