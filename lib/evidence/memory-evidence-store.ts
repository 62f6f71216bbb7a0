/** Evidence in process memory, over a journal: for unit tests and the memory store (one instance). */
import type { PaymentJournal, PaymentRecord } from "../journal/payment-journal";
import {
  listingResource,
  OUTCOMES_WINDOW_MS,
  UNDELIVERED_AFTER_MS,
  type EvidenceStore,
  type OutcomesAnswer,
  type OutcomesQuery,
  type PaymentOutcomes,
  type ProbeEvidence,
  type ProbeFinding,
} from "./evidence-store";

/** Payments read from a memory journal for outcomes: a memory journal holds a test's few. */
const PAYMENTS_READ = 10_000;

export class MemoryEvidenceStore implements EvidenceStore {
  private readonly findings = new Map<string, ProbeEvidence & { expiresAt: number }>();
  private readonly claims = new Map<string, number>();

  constructor(
    private readonly journal: Pick<PaymentJournal, "history">,
    private readonly now: () => number = Date.now,
  ) {}

  async probes(keys: readonly string[]): Promise<Map<string, ProbeEvidence>> {
    const now = this.now();
    const found = new Map<string, ProbeEvidence>();
    for (const key of keys) {
      const finding = this.findings.get(key);
      if (finding && finding.expiresAt > now)
        found.set(key, {
          verdict: finding.verdict,
          latencyMs: finding.latencyMs,
          checkedAt: finding.checkedAt,
          ...(finding.detail ? { detail: finding.detail } : {}),
        });
    }
    return found;
  }

  async claimProbe(key: string, intervalMs: number): Promise<boolean> {
    const now = this.now();
    if ((this.claims.get(key) ?? 0) > now) return false;
    this.claims.set(key, now + intervalMs);
    return true;
  }

  async recordProbe(key: string, finding: ProbeFinding, ttlMs: number): Promise<void> {
    const now = this.now();
    this.findings.set(key, { ...finding, checkedAt: now, expiresAt: now + ttlMs });
  }

  async outcomes(query: OutcomesQuery): Promise<OutcomesAnswer> {
    const now = this.now();
    const resources = new Set(query.resources);
    const payees = new Set(query.payees.map((payee) => payee.toLowerCase()));
    const byResource = new Map<string, PaymentRecord[]>();
    const byPayee = new Map<string, PaymentRecord[]>();
    const payments = await this.journal.history({ limit: PAYMENTS_READ });
    for (const payment of payments) {
      if (payment.createdAt <= now - OUTCOMES_WINDOW_MS) continue;
      const resource = payment.resource === undefined ? undefined : listingResource(payment.resource);
      if (resource !== undefined && resources.has(resource)) byResource.set(resource, [...(byResource.get(resource) ?? []), payment]);
      const payee = payment.payTo?.toLowerCase();
      if (payee !== undefined && payees.has(payee)) byPayee.set(payee, [...(byPayee.get(payee) ?? []), payment]);
    }
    const tally = (groups: Map<string, PaymentRecord[]>) => new Map([...groups].map(([key, group]) => [key, tallyOf(group, now)] as const));
    return { byResource: tally(byResource), byPayee: tally(byPayee) };
  }
}

function tallyOf(payments: readonly PaymentRecord[], now: number): PaymentOutcomes {
  const tally: PaymentOutcomes = { delivered: 0, failedAfterPayment: 0, refused: 0, overSettled: 0 };
  let latencyTotal = 0;
  for (const payment of payments) {
    const outcome = outcomeOf(payment, now);
    if (outcome === "delivered") {
      tally.delivered += 1;
      latencyTotal += payment.updatedAt - payment.createdAt;
    }
    if (outcome === "failed-after-payment") tally.failedAfterPayment += 1;
    if (outcome === "refused") tally.refused += 1;
    if (payment.settlementFlag === "over-settled") tally.overSettled += 1;
  }
  if (tally.delivered > 0) tally.latencyMs = Math.round(latencyTotal / tally.delivered);
  return tally;
}

/** The same rules as the database's query (database-evidence-store.ts). */
export function outcomeOf(
  payment: Pick<PaymentRecord, "status" | "txHash" | "reason" | "updatedAt">,
  now: number,
): "delivered" | "failed-after-payment" | "refused" | undefined {
  if (payment.status === "delivered") return "delivered";
  if (payment.status === "failed" && payment.txHash) return "failed-after-payment";
  if (payment.status === "confirmed" && payment.updatedAt <= now - UNDELIVERED_AFTER_MS) return "failed-after-payment";
  if (payment.status === "failed" && (payment.reason === "payment-failed" || payment.reason === "service-unavailable")) return "refused";
  return undefined;
}
