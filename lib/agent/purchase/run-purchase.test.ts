/**
 * The purchase path against a fake chain, a fake clock and a scripted service: every branch
 * after a signature is written, decided without waiting on a real expiry. The rule under test:
 * a signature that may have reached a service is money possibly spent until the chain proves
 * otherwise, and nothing says "nothing was spent" while it could still be used.
 */
import { encodePaymentRequiredHeader } from "@x402/core/http";
import { beforeEach, describe, expect, it } from "vitest";
import {
  agent,
  agentRequest,
  chain,
  clock,
  dependencies,
  events,
  PRICE,
  reserved,
  resetPurchaseHarness,
  SETTLED,
  store,
  tracker,
  unspentClaimsWhileUsable,
  watchReservation,
} from "../../../tests/support/purchase-harness";
import { fakePaidService, paidAnswer, refusedAnswer } from "../../../tests/support/fake-paid-service";
import { offlineNetwork } from "../../../tests/support/offline-fixtures";
import { GuardedFetchError } from "../../net/guarded-fetch-error";
import { EXPIRY_MARGIN_SECONDS } from "./authorization-window";
import { runPurchase, type PurchaseOutcome } from "./run-purchase";

beforeEach(resetPurchaseHarness);

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

  it("a 402 naming the verification error says it in words, and the wait names the authorization's expiry", async () => {
    const error = "invalid_exact_evm_signature";
    const header = encodePaymentRequiredHeader({ x402Version: 2, error, resource: { url: "http://x" }, accepts: [] } as never);
    const service = fakePaidService(offlineNetwork, {
      onPayment: () => new Response("{}", { status: 402, headers: { "content-type": "application/json", "PAYMENT-REQUIRED": header } }),
    });
    const outcome = await runPurchase(dependencies(service), agentRequest(service));
    const authorization = service.received[0]!;
    const pending = events.filter((event) => event.payment.status === "pending");
    expect(pending).toHaveLength(1);
    expect(pending[0]?.payment.expiresAt).toBe(Number(authorization.validBefore));
    expect(pending[0]?.payment.message).toMatch(/refused the payment at verification: it says the signature is invalid \(invalid_exact_evm_signature\)\./);
    expect(pending[0]?.payment.message).toMatch(/stays usable until \d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC and nothing can be spent with it after that/);
    expect(unspentClaimsWhileUsable(authorization)).toEqual([]);
    expect(outcome).toMatchObject({
      status: "failed",
      reason: "payment-failed",
      message: expect.stringMatching(/signature is invalid.*expired unused, so nothing was spent/),
    });
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
      for (const entry of due)
        if (atMs >= entry.atMs && !chain.used.has(entry.nonce)) chain.settle(entry.nonce, `0x${entry.nonce.slice(2, 66)}` as `0x${string}`);
    };
    const outcomes: PurchaseOutcome[] = [];
    for (const intent of ["a", "b", "c"]) {
      outcomes.push(await runPurchase(dependencies(service), agentRequest(service, { intent, tracker, deadline: clock.now() + 43_500 })));
    }
    expect(chain.used.size).toBe(1);
    expect(outcomes.slice(1).map((outcome) => outcome.status === "failed" && outcome.reason)).toEqual(["limit-exceeded", "limit-exceeded"]);
  });
});
