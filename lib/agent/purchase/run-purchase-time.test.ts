/**
 * The purchase path's time rules, and the user's approved request, against a fake chain and a
 * fake clock: an authorization lives only as long as its fate can still be proven before the
 * deadline, and a user's signature answered with a 402 is settled later by the reconciler.
 */
import { beforeEach, describe, expect, it } from "vitest";
import {
  agent,
  agentRequest,
  chain,
  clock,
  dependencies,
  newRequestTracker,
  PRICE,
  reserved,
  resetPurchaseHarness,
  store,
  unspentClaimsWhileUsable,
  user,
} from "../../../tests/support/purchase-harness";
import { fakePaidService, refusedAnswer, type FakePaidService } from "../../../tests/support/fake-paid-service";
import { offlineNetwork } from "../../../tests/support/offline-fixtures";
import { toViemTypedData } from "../../x402/transfer-authorization";
import { EXPIRY_MARGIN_SECONDS } from "./authorization-window";
import { reconcilePendingPayments } from "./reconcile-pending";
import { paymentIdForNonce as paymentIdOf } from "./purchase-types";
import { runApprovedPurchase, runPurchase } from "./run-purchase";

beforeEach(resetPurchaseHarness);

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
    const paymentRequired = {
      x402Version: 2 as const,
      accepts: [
        {
          scheme: "exact",
          network: offlineNetwork.caip2,
          asset: offlineNetwork.usdc,
          amount: String(PRICE),
          payTo: typedData.message.to,
          maxTimeoutSeconds: 120,
          extra: { name: offlineNetwork.usdcName, version: offlineNetwork.usdcVersion },
        },
      ],
    };
    const selection = requirement(paymentRequired as never, offlineNetwork);
    if (!selection.ok) throw new Error(selection.reason);
    const outcome = await runApprovedPurchase(
      dependencies(service),
      {
        payer: user.address,
        limits: { perPayment: 1_000_000n, perRequest: 1_000_000n, daily: PRICE },
        maxPayments: 3,
        tracker: newRequestTracker(),
        deadline: clock.now() + 43_500,
      },
      {
        service: "Paid data",
        url: service.url,
        method: "GET",
        option: selection.option,
        resource: { url: service.url },
        typedData,
        signature,
        nonce: typedData.message.nonce as `0x${string}`,
        validAfter: BigInt(typedData.message.validAfter),
        validBefore: BigInt(typedData.message.validBefore),
      },
    );
    const authorization = service.received[0]!;
    expect(outcome).toMatchObject({ status: "pending", expiresAt: Number(authorization.validBefore) });
    expect((outcome as { message: string }).message).toMatch(/Not spent yet: your signature stays valid until \d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC/);
    expect(unspentClaimsWhileUsable(authorization)).toEqual([]);
    expect(await reserved(user.address)).toBe(PRICE);

    // Before expiry the reconciler keeps it; after expiry, unused, it releases it.
    expect(await reconcilePendingPayments({ chain, ledger: store.ledger, journal: store.journal, now: clock.now, log: () => {} })).toMatchObject({
      stillPending: 1,
    });
    clock.advance((Number(authorization.validBefore) + EXPIRY_MARGIN_SECONDS + 1) * 1000 - clock.now());
    expect(await reconcilePendingPayments({ chain, ledger: store.ledger, journal: store.journal, now: clock.now, log: () => {} })).toMatchObject({
      released: 1,
    });
    expect(await reserved(user.address)).toBe(0n);
    expect(await store.journal.unsettled(10)).toEqual([]);
    expect(await store.journal.get(paymentIdOf(authorization.nonce))).toMatchObject({ status: "failed", message: expect.stringMatching(/expired unused/) });
  });
});
