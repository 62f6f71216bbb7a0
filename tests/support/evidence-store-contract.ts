/**
 * The behaviour every EvidenceStore must have, as one vitest suite: memory (over a memory
 * journal) and the database (PGlite, PostgreSQL) run it, so they answer alike.
 */
import { describe, expect, it } from "vitest";
import type { EvidenceStore } from "../../lib/evidence/evidence-store";
import type { JournalEntry, PaymentJournal } from "../../lib/journal/payment-journal";

/**
 * `count` evidence stores over one fresh, empty backend (instances of one deployment), and its
 * journal. A backend with a clock of its own (the database) also says how to move a payment's
 * last status change into its past (`backdate`): the writer's `at` does not decide there.
 */
export type MakeEvidenceStores = (count: number) => Promise<{
  stores: EvidenceStore[];
  journal: PaymentJournal;
  backdate?(paymentId: string, ms: number): Promise<void>;
  close(): Promise<void>;
}>;

const RESOURCE = "http://127.0.0.1:4021/weather";
const OTHER = "http://127.0.0.1:4021/news";
const PAYEE = "0x52908400098527886E0F7030069857D2E4169EE7";
const PAYER = "0x8617E340B3D01FA5F11F306F4090FD50E238070D";
const HASH = `0x${"ab".repeat(32)}`;

let sequence = 0;
/** A payment that went through these steps, started `startedAgoMs` before now (by the writer's clock). */
async function pay(journal: PaymentJournal, steps: Partial<JournalEntry>[], resource = RESOURCE, startedAgoMs = 1_000): Promise<string> {
  const id = `pay_evidence_${(sequence += 1)}`;
  const start = Date.now() - startedAgoMs;
  let at = start;
  await journal.record({ id, status: "quoted", at, payer: PAYER, resource, payTo: PAYEE, amount: 1000n });
  for (const step of steps) {
    at += 100;
    await journal.record({ id, status: "signing", at, ...step });
  }
  return id;
}

export function describeEvidenceStoreContract(name: string, make: MakeEvidenceStores): void {
  describe(`${name}: evidence store contract`, () => {
    it("keeps a probe's finding until it expires, and answers only for the listings asked", async () => {
      const { stores, close } = await make(1);
      try {
        const [store] = stores as [EvidenceStore];
        await store.recordProbe(RESOURCE, { verdict: "price-above-listing", detail: "asks 0.002 USDC, lists 0.001 USDC", latencyMs: 12 }, 60_000);
        await store.recordProbe(OTHER, { verdict: "buyable", latencyMs: 3 }, 1);
        await new Promise((resolve) => setTimeout(resolve, 20));
        const found = await store.probes([RESOURCE, OTHER, "http://127.0.0.1:4021/unknown"]);
        expect([...found.keys()]).toEqual([RESOURCE]);
        expect(found.get(RESOURCE)).toMatchObject({ verdict: "price-above-listing", detail: "asks 0.002 USDC, lists 0.001 USDC", latencyMs: 12 });
        expect(found.get(RESOURCE)?.checkedAt).toBeGreaterThan(Date.now() - 60_000);
        // A newer finding replaces the older one.
        await store.recordProbe(RESOURCE, { verdict: "buyable", latencyMs: 5 }, 60_000);
        expect((await store.probes([RESOURCE])).get(RESOURCE)?.verdict).toBe("buyable");
      } finally {
        await close();
      }
    });

    it("lets one instance claim a listing's probe per interval, whichever asks", async () => {
      const { stores, close } = await make(3);
      try {
        const claims = await Promise.all([...stores, ...stores].map((store) => store.claimProbe(RESOURCE, 60_000, "test")));
        expect(claims.filter(Boolean)).toHaveLength(1);
        // A claim does not read as a finding, and a lapsed claim can be taken again.
        expect((await stores[0]!.probes([RESOURCE])).size).toBe(0);
        expect(await stores[1]!.claimProbe(OTHER, 1)).toBe(true);
        await new Promise((resolve) => setTimeout(resolve, 20));
        expect(await stores[2]!.claimProbe(OTHER, 60_000)).toBe(true);
        expect(await stores[0]!.claimProbe(OTHER, 60_000)).toBe(false);
      } finally {
        await close();
      }
    });

    it("counts what our payments came to per listing and per payee: delivered, failed after payment, refused, over-settled", async () => {
      const { stores, journal, backdate, close } = await make(2);
      try {
        await pay(journal, [{ status: "confirmed", txHash: HASH }, { status: "delivered" }], `${RESOURCE}?city=Lisbon`);
        await pay(journal, [
          { status: "confirmed", txHash: HASH },
          { status: "failed", reason: "service-unavailable" },
        ]);
        await pay(journal, [{ status: "failed", reason: "payment-failed" }]);
        await pay(journal, [{ status: "confirmed", txHash: HASH, settlementFlag: "over-settled" }, { status: "delivered" }]);
        // Settled long ago and never delivered: failed after payment. Settled just now: still in flight.
        const abandoned = await pay(journal, [{ status: "confirmed", txHash: HASH }], RESOURCE, 10 * 60_000);
        await backdate?.(abandoned, 10 * 60_000);
        await pay(journal, [{ status: "confirmed", txHash: HASH }]);
        await pay(journal, [{ status: "confirmed", txHash: HASH }, { status: "delivered" }], OTHER);
        // Another instance reads the same outcomes.
        const answer = await stores[1]!.outcomes({ resources: [RESOURCE, "http://127.0.0.1:4021/none"], payees: [PAYEE.toLowerCase()] });
        expect(answer.byResource.get(RESOURCE)).toEqual({ delivered: 2, failedAfterPayment: 2, refused: 1, overSettled: 1, latencyMs: 200 });
        expect(answer.byResource.has("http://127.0.0.1:4021/none")).toBe(false);
        expect(answer.byPayee.get(PAYEE.toLowerCase())).toMatchObject({ delivered: 3, failedAfterPayment: 2, refused: 1, overSettled: 1 });
      } finally {
        await close();
      }
    });

    it("judges how long a payment has been settled by its own clock, not by the clock of the instance that wrote it", async (context) => {
      const { stores, journal, backdate, close } = await make(1);
      try {
        // Only a backend with a clock of its own can tell; in memory the writer's clock is the store's.
        if (!backdate) return context.skip();
        // Written by an instance whose clock runs 10 minutes behind: settled a moment ago, still in flight.
        await pay(journal, [{ status: "confirmed", txHash: HASH }], RESOURCE, 10 * 60_000);
        const answer = await stores[0]!.outcomes({ resources: [RESOURCE], payees: [PAYEE] });
        expect(answer.byResource.get(RESOURCE)).toMatchObject({ failedAfterPayment: 0 });
      } finally {
        await close();
      }
    });
  });
}
