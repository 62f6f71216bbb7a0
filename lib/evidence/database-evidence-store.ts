import "server-only";
/**
 * Evidence in the database (`listing_evidence`, migration 0012), shared by every instance:
 * findings expire and claims lapse on the database's clock (`db_now_ms()`), and outcomes are
 * one aggregate over the journal's `payments`, by listing and by payee. "Settled and still not
 * delivered" is measured from `status_at`, which the database stamps (migration 0013), never
 * from a time an instance wrote with its own clock.
 */
import { sql, type Kysely } from "kysely";
import type { Database } from "../db/schema";
import {
  OUTCOMES_WINDOW_MS,
  UNDELIVERED_AFTER_MS,
  type EvidenceStore,
  type OutcomesAnswer,
  type OutcomesQuery,
  type PaymentOutcomes,
  type ProbeEvidence,
  type ProbeFinding,
  type ProbeVerdict,
} from "./evidence-store";

/** Expired rows removed per recorded finding: the table stays the size of what is listed now. */
const PURGED_PER_RECORD = 50;

type OutcomeRow = { key: string; delivered: unknown; failed_after_payment: unknown; refused: unknown; over_settled: unknown; latency_ms: unknown };

export class DatabaseEvidenceStore implements EvidenceStore {
  constructor(private readonly db: Kysely<Database>) {}

  async probes(keys: readonly string[]): Promise<Map<string, ProbeEvidence>> {
    const found = new Map<string, ProbeEvidence>();
    if (keys.length === 0) return found;
    const rows = await this.db
      .selectFrom("listing_evidence")
      .select(["listing_key", "verdict", "detail", "latency_ms", "checked_at"])
      .where("listing_key", "in", [...keys])
      .where("verdict", "is not", null)
      .where("expires_at", ">", sql<number>`db_now_ms()`)
      .execute();
    for (const row of rows) {
      found.set(row.listing_key, {
        verdict: row.verdict as ProbeVerdict,
        latencyMs: Number(row.latency_ms ?? 0),
        checkedAt: Number(row.checked_at),
        ...(row.detail ? { detail: row.detail } : {}),
      });
    }
    return found;
  }

  async claimProbe(key: string, intervalMs: number, holder?: string): Promise<boolean> {
    // One statement: the row's lock makes two instances' claims take turns, and the second
    // sees the first's claim and updates nothing.
    const claimed = await sql<{ listing_key: string }>`
      INSERT INTO listing_evidence (listing_key, claimed_until, claimed_by) VALUES (${key}, db_now_ms() + ${intervalMs}, ${holder ?? null})
      ON CONFLICT (listing_key) DO UPDATE SET claimed_until = excluded.claimed_until, claimed_by = excluded.claimed_by
      WHERE listing_evidence.claimed_until <= db_now_ms()
      RETURNING listing_key`.execute(this.db);
    return claimed.rows.length === 1;
  }

  async recordProbe(key: string, finding: ProbeFinding, ttlMs: number): Promise<void> {
    await sql`
      INSERT INTO listing_evidence (listing_key, verdict, detail, latency_ms, checked_at, expires_at)
      VALUES (${key}, ${finding.verdict}, ${finding.detail ?? null}, ${Math.round(finding.latencyMs)}, db_now_ms(), db_now_ms() + ${ttlMs})
      ON CONFLICT (listing_key) DO UPDATE SET verdict = excluded.verdict, detail = excluded.detail, latency_ms = excluded.latency_ms,
        checked_at = excluded.checked_at, expires_at = excluded.expires_at`.execute(this.db);
    await sql`
      DELETE FROM listing_evidence WHERE listing_key IN (
        SELECT listing_key FROM listing_evidence WHERE greatest(expires_at, claimed_until) < db_now_ms() LIMIT ${PURGED_PER_RECORD})`.execute(this.db);
  }

  async outcomes(query: OutcomesQuery): Promise<OutcomesAnswer> {
    const answer: OutcomesAnswer = { byResource: new Map(), byPayee: new Map() };
    const [byResource, byPayee] = await Promise.all([
      query.resources.length === 0 ? [] : this.tally(sql`split_part(resource, '?', 1)`, [...query.resources]),
      query.payees.length === 0
        ? []
        : this.tally(
            sql`lower(pay_to)`,
            query.payees.map((payee) => payee.toLowerCase()),
          ),
    ]);
    for (const row of byResource) answer.byResource.set(row.key, outcomesOf(row));
    for (const row of byPayee) answer.byPayee.set(row.key, outcomesOf(row));
    return answer;
  }

  /** The same rules as `outcomeOf` (memory-evidence-store.ts), one row per key. */
  private async tally(keyExpression: ReturnType<typeof sql>, keys: string[]): Promise<OutcomeRow[]> {
    const result = await sql<OutcomeRow>`
      WITH now AS (SELECT db_now_ms() AS ms)
      SELECT ${keyExpression} AS key,
        count(*) FILTER (WHERE status = 'delivered') AS delivered,
        count(*) FILTER (WHERE (status = 'failed' AND tx_hash IS NOT NULL) OR (status = 'confirmed' AND status_at <= now.ms - ${UNDELIVERED_AFTER_MS})) AS failed_after_payment,
        count(*) FILTER (WHERE status = 'failed' AND tx_hash IS NULL AND reason IN ('payment-failed', 'service-unavailable')) AS refused,
        count(*) FILTER (WHERE settlement_flag = 'over-settled') AS over_settled,
        round(avg(updated_at - created_at) FILTER (WHERE status = 'delivered')) AS latency_ms
      FROM payments, now
      WHERE ${keyExpression} = ANY(${keys}) AND created_at > now.ms - ${OUTCOMES_WINDOW_MS}
      GROUP BY 1`.execute(this.db);
    return result.rows;
  }
}

function outcomesOf(row: OutcomeRow): PaymentOutcomes {
  const outcomes: PaymentOutcomes = {
    delivered: Number(row.delivered),
    failedAfterPayment: Number(row.failed_after_payment),
    refused: Number(row.refused),
    overSettled: Number(row.over_settled),
  };
  if (row.latency_ms !== null && row.latency_ms !== undefined) outcomes.latencyMs = Number(row.latency_ms);
  return outcomes;
}
