/**
 * The purchase path against a fake chain, a fake clock and a scripted service: every branch
 * after a signature is written, decided without waiting on a real expiry. The rule under test:
 * a signature that may have reached a service is money possibly spent until the chain proves
 * otherwise, and nothing says "nothing was spent" while it could still be used.
 */
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { beforeEach, describe, expect, it } from "vitest";
import { FakeChain, FakeClock } from "../../../tests/support/fake-chain";
import { fakePaidService, paidAnswer, refusedAnswer, type FakePaidService, type ReceivedAuthorization } from "../../../tests/support/fake-paid-service";
import { offlineNetwork } from "../../../tests/support/offline-fixtures";
import { GuardedFetchError } from "../../net/guarded-fetch-error";
import { createMemoryStore } from "../../store/create-memory-store";
import type { Store } from "../../store/store-types";
import { StreamWriter, type PaymentEvent } from "../../stream";
import { toViemTypedData } from "../../x402/transfer-authorization";
import { EXPIRY_MARGIN_SECONDS } from "./authorization-window";
import { PaymentTracker } from "./payment-tracker";
import { reconcilePendingPayments } from "./reconcile-pending";
import { paymentIdForNonce as paymentIdOf } from "./purchase-types";
import { runApprovedPurchase, runPurchase, type PurchaseDependencies, type PurchaseOutcome, type PurchaseRequest } from "./run-purchase";

const PRICE = 15_000n;
const SETTLED = `0x${"5e".repeat(32)}` as const;

let clock: FakeClock;
let chain: FakeChain;
let store: Store;
let events: { atMs: number; payment: Omit<PaymentEvent, "at"> }[];
let tracker: PaymentTracker;
const agent = privateKeyToAccount(generatePrivateKey());
const user = privateKeyToAccount(generatePrivateKey());

/** A new stream, as the second request of an approval has. */
function newRequestTracker(): PaymentTracker {
  const writer = new StreamWriter({ framing: "plain", keepAliveMs: 0 });
  const record = writer.payment.bind(writer);
  writer.payment = (payment) => {
    events.push({ atMs: clock.now(), payment });
    record(payment);
  };
  return new PaymentTracker(writer, { journal: store.journal, requestKey: "key:test", conversationId: "conversation", now: clock.now });
}

beforeEach(() => {
  clock = new FakeClock();
  chain = new FakeChain();
  store = createMemoryStore();
  events = [];
  tracker = newRequestTracker();
});

function dependencies(service: FakePaidService): PurchaseDependencies {
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

function agentRequest(service: FakePaidService, overrides: Partial<PurchaseRequest> = {}): PurchaseRequest {
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

async function reserved(payer: `0x${string}`): Promise<bigint> {
  return (await store.ledger.spentToday(payer, { now: Date.now() })).reserved;
}

/** Every "nothing was spent" said while the authorization could still be used. */
function unspentClaimsWhileUsable(authorization: ReceivedAuthorization | undefined): string[] {
  if (!authorization) return [];
  return events
    .filter((event) => /nothing was spent/i.test(event.payment.message ?? "") && event.atMs <= Number(authorization.validBefore) * 1000)
    .map((event) => event.payment.message ?? "");
}

/** Watches the reservation every time the clock moves. */
function watchReservation(payer: `0x${string}`): { samples: { atMs: number; reserved: bigint }[] } {
  const watch = { samples: [] as { atMs: number; reserved: bigint }[] };
  clock.onSleep = (atMs) => {
    void reserved(payer).then((amount) => watch.samples.push({ atMs, reserved: amount }));
  };
  return watch;
}

describe("agent wallet: after the signature was sent", () => {
  it("a 402 answer holds the reservation until the chain proves the authorization expired unused", async () => {
    const service = fakePaidService(offlineNetwork, { onPayment: () => refusedAnswer() });
    const watch = watchReservation(agent.address);
    const outcome = await runPurchase(dependencies(service), agentRequest(service));
    const authorization = service.received[0]!;
    expect(outcome).toMatchObject({ status: "failed", reason: "payment-failed" });
    expect((outcome as { message: string }).message).toMatch(/expired unused, so nothing was spent/);
    // Held while usable: every sample up to validBefore still shows the amount reserved.
    const whileUsable = watch.samples.filter((sample) => sample.atMs <= Number(authorization.validBefore) * 1000);
    expect(whileUsable.length).toBeGreaterThan(5);
    expect(whileUsable.every((sample) => sample.reserved === PRICE)).toBe(true);
    expect(clock.now()).toBeGreaterThan(Number(authorization.validBefore + BigInt(EXPIRY_MARGIN_SECONDS)) * 1000);
    expect(unspentClaimsWhileUsable(authorization)).toEqual([]);
    expect(await reserved(agent.address)).toBe(0n);
  });

  it("a 402 now and a settlement 1.5 s later is reported with its hash and counted once", async () => {
    let paidAt = 0;
    let nonce = "";
    const service = fakePaidService(offlineNetwork, {
      onPayment: (authorization) => {
        paidAt = clock.now();
        nonce = authorization.nonce;
        return refusedAnswer();
      },
    });
    clock.onSleep = (atMs) => {
      if (nonce && atMs >= paidAt + 1_500 && !chain.used.has(nonce)) chain.settle(nonce, SETTLED);
    };
    const outcome = await runPurchase(dependencies(service), agentRequest(service));
    expect(outcome).toMatchObject({ status: "failed", reason: "payment-failed", txHash: SETTLED });
    expect(events.find((event) => event.payment.status === "confirmed")?.payment.txHash).toBe(SETTLED);
    expect(tracker.txHash).toBe(SETTLED);
    const entries = await store.ledger.entries(agent.address);
    expect(entries.map((entry) => [entry.amount, entry.txHash])).toEqual([[PRICE, SETTLED]]);
    expect(await reserved(agent.address)).toBe(0n);
    expect(unspentClaimsWhileUsable(service.received[0])).toEqual([]);
  });

  it.each([
    ["the connection was reset after the request was written", () => new GuardedFetchError("connection_lost")],
    ["the answer was garbage", () => new GuardedFetchError("connection_lost", { cause: new Error("HPE_INVALID_CONSTANT") })],
    ["it timed out", () => new GuardedFetchError("timeout")],
    ["a redirect hop was refused after the first hop answered", () => new GuardedFetchError("blocked_address").afterEarlierHop()],
    ["the request was aborted", () => new DOMException("aborted", "AbortError")],
  ])("%s: held as possibly spent until proven", async (_case, makeError) => {
    const service = fakePaidService(offlineNetwork, {
      onPayment: () => {
        throw makeError();
      },
    });
    const watch = watchReservation(agent.address);
    const outcome = await runPurchase(dependencies(service), agentRequest(service));
    const authorization = service.received[0]!;
    expect(outcome).toMatchObject({ status: "failed", reason: "payment-failed" });
    expect(watch.samples.filter((sample) => sample.atMs <= Number(authorization.validBefore) * 1000).every((sample) => sample.reserved === PRICE)).toBe(true);
    expect(unspentClaimsWhileUsable(authorization)).toEqual([]);
  });

  it("a redirect answer to the paid request is not followed and is held until proven", async () => {
    const service = fakePaidService(offlineNetwork, { onPayment: () => new Response(null, { status: 302, headers: { location: "http://10.0.0.1/" } }) });
    const outcome = await runPurchase(dependencies(service), agentRequest(service));
    expect(service.requests.at(-1)).toMatchObject({ paid: true, redirect: "manual" });
    expect(outcome).toMatchObject({ status: "failed" });
    expect((outcome as { message: string }).message).toMatch(/HTTP 302.*expired unused/);
    expect(unspentClaimsWhileUsable(service.received[0])).toEqual([]);
  });

  it("a refusal before any byte left releases at once and says so", async () => {
    const service = fakePaidService(offlineNetwork, {
      onPayment: () => {
        throw new GuardedFetchError("connect_failed");
      },
    });
    const startedAt = clock.now();
    const outcome = await runPurchase(dependencies(service), agentRequest(service));
    expect(outcome).toMatchObject({ status: "failed", reason: "service-unavailable" });
    expect((outcome as { message: string }).message).toMatch(/never left, so nothing was spent/);
    expect(clock.now()).toBe(startedAt);
    expect(await reserved(agent.address)).toBe(0n);
  });

  it("a claimed settlement the chain shows is delivered at once", async () => {
    const service = fakePaidService(offlineNetwork, {
      onPayment: (authorization) => paidAnswer(chain.settle(authorization.nonce, SETTLED), { forecast: "sunny" }),
    });
    const outcome = await runPurchase(dependencies(service), agentRequest(service));
    expect(outcome).toMatchObject({ status: "delivered", txHash: SETTLED, data: { content: { forecast: "sunny" } } });
    expect(events.map((event) => event.payment.status)).toEqual(["quoted", "signing", "verifying", "confirmed", "delivered"]);
  });

  it("a claimed settlement the chain does not show is not believed", async () => {
    const service = fakePaidService(offlineNetwork, { onPayment: () => paidAnswer(SETTLED) });
    const outcome = await runPurchase(dependencies(service), agentRequest(service));
    expect(outcome).toMatchObject({ status: "failed", reason: "payment-failed" });
    expect(events.some((event) => event.payment.status === "confirmed")).toBe(false);
    expect(await reserved(agent.address)).toBe(0n);
  });

  it("the same service three times under a one-price daily limit moves at most one price", async () => {
    // The service settles every signature 1.5 s after answering 402.
    const due: { nonce: string; atMs: number }[] = [];
    const service = fakePaidService(offlineNetwork, {
      onPayment: (authorization) => {
        due.push({ nonce: authorization.nonce, atMs: clock.now() + 1_500 });
        return refusedAnswer();
      },
    });
    clock.onSleep = (atMs) => {
      for (const entry of due) if (atMs >= entry.atMs && !chain.used.has(entry.nonce)) chain.settle(entry.nonce, `0x${entry.nonce.slice(2, 66)}` as `0x${string}`);
    };
    const outcomes: PurchaseOutcome[] = [];
    for (const intent of ["a", "b", "c"]) {
      outcomes.push(await runPurchase(dependencies(service), agentRequest(service, { intent, tracker, deadline: clock.now() + 43_500 })));
    }
    expect(chain.used.size).toBe(1);
    expect(outcomes.slice(1).map((outcome) => outcome.status === "failed" && outcome.reason)).toEqual(["limit-exceeded", "limit-exceeded"]);
  });
});

describe("agent wallet: time", () => {
  it("with 22 s left, the authorization expires early enough that its fate is proven before the deadline", async () => {
    const service = fakePaidService(offlineNetwork, { onPayment: () => refusedAnswer() });
    const deadline = clock.now() + 22_000;
    const outcome = await runPurchase(dependencies(service), agentRequest(service, { deadline }));
    expect(outcome).toMatchObject({ status: "failed", reason: "payment-failed" });
    expect(clock.now()).toBeLessThanOrEqual(deadline);
    expect((Number(service.received[0]!.validBefore) + EXPIRY_MARGIN_SECONDS) * 1000).toBeLessThan(deadline);
    expect(await reserved(agent.address)).toBe(0n);
  });

  it("with too little time left to prove an outcome, nothing is signed", async () => {
    const service = fakePaidService(offlineNetwork, { onPayment: () => refusedAnswer() });
    const outcome = await runPurchase(dependencies(service), agentRequest(service, { deadline: clock.now() + 10_000 }));
    expect(outcome).toMatchObject({ status: "failed", reason: "deadline" });
    expect(service.received).toEqual([]);
  });

  it("a chain that cannot be read leaves the payment pending and hands it to the reconciler", async () => {
    const service = fakePaidService(offlineNetwork, {
      onPayment: () => {
        chain.unreachable = true;
        return refusedAnswer();
      },
    });
    const outcome = await runPurchase(dependencies(service), agentRequest(service));
    expect(outcome).toMatchObject({ status: "pending" });
    expect((outcome as { message: string }).message).toMatch(/Not spent yet: the agent's authorization stays valid until/);
    expect(await reserved(agent.address)).toBe(PRICE);
    expect((await store.journal.unsettled(10)).map((payment) => [payment.nonce, payment.status])).toEqual([[service.received[0]!.nonce, "pending"]]);
  });
});

describe("user wallet: the approved request", () => {
  async function approve(service: FakePaidService) {
    const first = await runPurchase(dependencies(service), {
      ...agentRequest(service),
      payer: { kind: "user", address: user.address },
    });
    if (first.status !== "awaiting-approval") throw new Error(`expected an approval, got ${first.status}`);
    const typedData = first.approval.typedData as Parameters<typeof toViemTypedData>[0];
    const signature = await user.signTypedData(toViemTypedData(typedData));
    return { typedData, signature };
  }

  it("a 402 after the user's signature says it is not spent yet, keeps the budget reserved, and the reconciler settles it later", async () => {
    const service = fakePaidService(offlineNetwork, { onPayment: () => refusedAnswer() });
    const { typedData, signature } = await approve(service);
    const requirement = (await import("../../x402/payment-requirements")).selectPayableRequirement;
    const paymentRequired = { x402Version: 2 as const, accepts: [{ scheme: "exact", network: offlineNetwork.caip2, asset: offlineNetwork.usdc, amount: String(PRICE), payTo: typedData.message.to, maxTimeoutSeconds: 120, extra: { name: offlineNetwork.usdcName, version: offlineNetwork.usdcVersion } }] };
    const selection = requirement(paymentRequired as never, offlineNetwork);
    if (!selection.ok) throw new Error(selection.reason);
    const outcome = await runApprovedPurchase(
      dependencies(service),
      { payer: user.address, limits: { perPayment: 1_000_000n, perRequest: 1_000_000n, daily: PRICE }, maxPayments: 3, tracker: newRequestTracker(), deadline: clock.now() + 43_500 },
      { service: "Paid data", url: service.url, method: "GET", option: selection.option, resource: { url: service.url }, typedData, signature },
    );
    const authorization = service.received[0]!;
    expect(outcome).toMatchObject({ status: "pending", expiresAt: Number(authorization.validBefore) });
    expect((outcome as { message: string }).message).toMatch(/Not spent yet: your signature stays valid until \d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC/);
    expect(unspentClaimsWhileUsable(authorization)).toEqual([]);
    expect(await reserved(user.address)).toBe(PRICE);

    // Before expiry the reconciler keeps it; after expiry, unused, it releases it.
    expect(await reconcilePendingPayments({ chain, ledger: store.ledger, journal: store.journal, now: clock.now, log: () => {} })).toMatchObject({ stillPending: 1 });
    clock.advance((Number(authorization.validBefore) + EXPIRY_MARGIN_SECONDS + 1) * 1000 - clock.now());
    expect(await reconcilePendingPayments({ chain, ledger: store.ledger, journal: store.journal, now: clock.now, log: () => {} })).toMatchObject({ released: 1 });
    expect(await reserved(user.address)).toBe(0n);
    expect(await store.journal.unsettled(10)).toEqual([]);
    expect(await store.journal.get(paymentIdOf(authorization.nonce))).toMatchObject({ status: "failed", message: expect.stringMatching(/expired unused/) });
  });
});

describe("the listing's price and the 402's", () => {
  it("the agent does not pay more than the listing advertised: refused before anything is signed", async () => {
    const service = fakePaidService(offlineNetwork, { amount: 20_000n, onPayment: () => paidAnswer(SETTLED, {}) });
    const outcome = await runPurchase(dependencies(service), agentRequest(service, { listedAmount: 10_000n }));
    expect(outcome).toMatchObject({ status: "failed", reason: "payment-failed", message: "Paid data asks 0.02 USDC, more than the 0.01 USDC its listing advertised; nothing was signed." });
    expect(service.received).toEqual([]);
    expect(events.some((event) => event.payment.status === "signing")).toBe(false);
  });

  it("a lower price than listed is paid, and the quote says what the listing said", async () => {
    const service = fakePaidService(offlineNetwork, { amount: 10_000n, onPayment: (authorization) => paidAnswer(chain.settle(authorization.nonce, SETTLED), {}) });
    const outcome = await runPurchase(dependencies(service), agentRequest(service, { listedAmount: 15_000n }));
    expect(outcome).toMatchObject({ status: "delivered", amount: "0.01" });
    expect(events.find((event) => event.payment.status === "quoted")?.payment.message).toBe("Paid data asks 0.01 USDC (its listing said 0.015 USDC).");
  });

  it("a user is shown both prices and decides", async () => {
    const service = fakePaidService(offlineNetwork, { amount: 20_000n, onPayment: () => paidAnswer(SETTLED, {}) });
    const outcome = await runPurchase(dependencies(service), agentRequest(service, { listedAmount: 10_000n, payer: { kind: "user", address: user.address } }));
    expect(outcome).toMatchObject({ status: "awaiting-approval", amount: "0.02" });
    expect(events.find((event) => event.payment.status === "awaiting-approval")?.payment.message).toBe("Approve 0.02 USDC to Paid data in your wallet (its listing said 0.01 USDC).");
  });
});
