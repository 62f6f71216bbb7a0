/**
 * The purchase path's test harness (lib/agent/purchase/run-purchase*.test.ts): a fake chain, a
 * fake clock, a memory store and a stream whose payment events are kept with the fake time they
 * were written at. The bindings are live: `resetPurchaseHarness` (before each test) replaces them.
 */
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { PaymentTracker } from "../../lib/agent/purchase/payment-tracker";
import type { PurchaseDependencies, PurchaseRequest } from "../../lib/agent/purchase/run-purchase";
import { createMemoryStore } from "../../lib/store/create-memory-store";
import type { Store } from "../../lib/store/store-types";
import { StreamWriter, type PaymentEvent } from "../../lib/stream";
import { FakeChain, FakeClock } from "./fake-chain";
import type { FakePaidService, ReceivedAuthorization } from "./fake-paid-service";
import { offlineNetwork } from "./offline-fixtures";

export const PRICE = 15_000n;
export const SETTLED = `0x${"5e".repeat(32)}` as const;

export let clock: FakeClock;
export let chain: FakeChain;
export let store: Store;
export let events: { atMs: number; payment: Omit<PaymentEvent, "at"> }[];
export let tracker: PaymentTracker;
export const agent = privateKeyToAccount(generatePrivateKey());
export const user = privateKeyToAccount(generatePrivateKey());

/** A new stream, as the second request of an approval has. */
export function newRequestTracker(): PaymentTracker {
  const writer = new StreamWriter({ framing: "plain", keepAliveMs: 0 });
  const record = writer.payment.bind(writer);
  writer.payment = (payment) => {
    events.push({ atMs: clock.now(), payment });
    record(payment);
  };
  return new PaymentTracker(writer, { journal: store.journal, requestKey: "key:test", conversationId: "conversation", now: clock.now });
}

/** Run before each test: a fresh clock, chain, store and stream. */
export function resetPurchaseHarness(): void {
  clock = new FakeClock();
  chain = new FakeChain();
  store = createMemoryStore();
  events = [];
  tracker = newRequestTracker();
}

export function dependencies(service: Pick<FakePaidService, "fetch">): PurchaseDependencies {
  return {
    network: offlineNetwork,
    fetch: service.fetch,
    chain,
    ledger: store.ledger,
    quoteSecret: "unit-test-quote-secret-0123456789abcdef",
    now: clock.now,
    sleep: clock.sleep,
    reconcileIntervalMs: 500,
  };
}

export function agentRequest(service: Pick<FakePaidService, "url">, overrides: Partial<PurchaseRequest> = {}): PurchaseRequest {
  return {
    service: "Paid data",
    url: service.url,
    method: "GET",
    intent: "call-1",
    payer: { kind: "agent", account: agent },
    limits: { perPayment: 1_000_000n, perRequest: 1_000_000n, daily: PRICE },
    maxPayments: 3,
    tracker,
    deadline: clock.now() + 43_500,
    ...overrides,
  };
}

export async function reserved(payer: `0x${string}`): Promise<bigint> {
  return (await store.ledger.spentToday(payer, { now: Date.now() })).reserved;
}

/** Every "nothing was spent" said while the authorization could still be used. */
export function unspentClaimsWhileUsable(authorization: ReceivedAuthorization | undefined): string[] {
  if (!authorization) return [];
  return events
    .filter((event) => /nothing was spent/i.test(event.payment.message ?? "") && event.atMs <= Number(authorization.validBefore) * 1000)
    .map((event) => event.payment.message ?? "");
}

/** Watches the reservation every time the clock moves. */
export function watchReservation(payer: `0x${string}`): { samples: { atMs: number; reserved: bigint }[] } {
  const watch = { samples: [] as { atMs: number; reserved: bigint }[] };
  clock.onSleep = (atMs) => {
    void reserved(payer).then((amount) => watch.samples.push({ atMs, reserved: amount }));
  };
  return watch;
}
