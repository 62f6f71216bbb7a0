/**
 * The agent paying a metered (`upto`) service, against a fake chain and clock: the ceiling is
 * quoted, checked against the limits and reserved; the permit is signed; the amount the chain
 * shows settled is committed and the rest of the ceiling freed (daily and per request); the
 * stream and the journal carry ceiling and actual; a settlement above the service's own metering
 * is flagged; and when the claim is not on chain, Permit2's nonce bitmap decides.
 */
import { beforeEach, describe, expect, it } from "vitest";
import {
  agent,
  agentRequest,
  chain,
  clock,
  dependencies,
  events,
  reserved,
  resetPurchaseHarness,
  store,
  tracker,
  user,
} from "../../../tests/support/purchase-harness";
import { fakeMeteredService, meteredAnswer, FACILITATOR } from "../../../tests/support/fake-metered-service";
import { fakePaidService, MERCHANT, paidAnswer, refusedAnswer } from "../../../tests/support/fake-paid-service";
import { offlineNetwork } from "../../../tests/support/offline-fixtures";
import { PERMIT2, permit2NonceOf } from "../../x402/upto-permit2";
import { runPurchase } from "./run-purchase";

beforeEach(resetPurchaseHarness);

const CEILING = 50_000n;
const TX = `0x${"7a".repeat(32)}` as const;
const limits = (daily: bigint, perPayment = 1_000_000n, perRequest = 1_000_000n) => ({ perPayment, perRequest, daily });
/** The harness's request with room for a ceiling unless a test sets its own limits. */
const request = (service: Parameters<typeof agentRequest>[0], overrides: Parameters<typeof agentRequest>[1] = {}) =>
  agentRequest(service, { limits: limits(1_000_000n), ...overrides });

describe("agent wallet pays an upto service", () => {
  it("reserves the ceiling, signs the permit, commits what the chain shows settled and frees the rest", async () => {
    let reservedDuringRequest = -1n;
    const service = fakeMeteredService(offlineNetwork, {
      onPayment: async (permit) => {
        reservedDuringRequest = await reserved(agent.address);
        chain.settlePermit(permit.nonce, 3_000n, TX);
        return meteredAnswer(TX, 3_000n, { unitsUsed: 3 });
      },
    });
    const outcome = await runPurchase(dependencies(service), request(service, { limits: limits(CEILING) }));
    expect(outcome).toMatchObject({
      status: "delivered",
      amount: "0.003",
      txHash: TX,
      metered: { ceiling: "0.05", message: expect.stringMatching(/^Paid 0\.003 USDC of a signed ceiling/) },
    });
    // The whole ceiling was held while the service had the permit, and only the actual counts now.
    expect(reservedDuringRequest).toBe(CEILING);
    expect(await store.ledger.spentToday(agent.address, { now: Date.now() })).toEqual({ settled: 3_000n, reserved: 0n });
    expect(tracker.committedAmount).toBe(3_000n);
    // What went out: the permit for the ceiling, to the payee, settleable by the named facilitator only.
    const permit = service.received[0]!;
    expect(permit).toMatchObject({ scheme: "upto", ceiling: CEILING, from: agent.address, to: MERCHANT, facilitator: FACILITATOR });
    // The stream: quoted at the ceiling, confirmed and delivered at the actual amount beside it.
    const byStatus = (status: string) => events.find((event) => event.payment.status === status)?.payment;
    expect(byStatus("quoted")).toMatchObject({ amount: "0.05", ceiling: "0.05", message: expect.stringMatching(/asks up to 0\.05 USDC, metered/) });
    expect(byStatus("confirmed")).toMatchObject({
      amount: "0.003",
      ceiling: "0.05",
      txHash: TX,
      message: expect.stringMatching(/Paid 0\.003 USDC of a signed ceiling of 0\.05 USDC \(3 × 100 characters at 0\.001 USDC\)/),
    });
    expect(byStatus("confirmed")?.settlementFlag).toBeUndefined();
    expect(byStatus("delivered")).toMatchObject({ amount: "0.003", ceiling: "0.05" });
    expect(tracker.summaries[0]).toMatchObject({ status: "delivered", amount: "0.003", ceiling: "0.05" });
    // The journal: scheme and ceiling from the quote, the actual amount from the settlement.
    await tracker.recorded();
    const record = await store.journal.get(tracker.summaries[0]!.id);
    expect(record).toMatchObject({ status: "delivered", scheme: "upto", ceiling: CEILING, amount: 3_000n, txHash: TX });
    // The Permit2 nonce is the quote's HMAC nonce.
    expect(permit.nonce).toBe(permit2NonceOf(record!.nonce as `0x${string}`));
  });

  it("flags a settlement above the service's own metering, in the stream and the journal, never above the ceiling", async () => {
    const service = fakeMeteredService(offlineNetwork, {
      ceiling: 20_000n,
      onPayment: (permit) => {
        chain.settlePermit(permit.nonce, 20_000n, TX);
        // It says 1 unit, charged 0.001, and settles the whole ceiling.
        return meteredAnswer(TX, 20_000n, { unitsUsed: 1, charged: 1_000n });
      },
    });
    const outcome = await runPurchase(dependencies(service), request(service));
    expect(outcome).toMatchObject({ status: "delivered", amount: "0.02" });
    const confirmed = events.find((event) => event.payment.status === "confirmed")!.payment;
    expect(confirmed).toMatchObject({ settlementFlag: "over-settled", amount: "0.02", ceiling: "0.02" });
    expect(confirmed.message).toMatch(
      /^Flagged: Paid data settled 0\.02 USDC, more than the 0\.001 USDC its own metering says it used \(1 × 100 characters at 0\.001 USDC\)\. The chain held it to the signed ceiling of 0\.02 USDC\./,
    );
    expect(tracker.summaries[0]).toMatchObject({ settlementFlag: "over-settled" });
    await tracker.recorded();
    expect(await store.journal.get(tracker.summaries[0]!.id)).toMatchObject({ settlementFlag: "over-settled", amount: 20_000n, ceiling: 20_000n });
  });

  it("flags a settlement above what the service's settlement response reported", async () => {
    const service = fakeMeteredService(offlineNetwork, {
      onPayment: (permit) => {
        chain.settlePermit(permit.nonce, 9_000n, TX);
        return meteredAnswer(TX, 3_000n);
      },
    });
    await runPurchase(dependencies(service), request(service));
    const confirmed = events.find((event) => event.payment.status === "confirmed")!.payment;
    expect(confirmed).toMatchObject({ settlementFlag: "over-settled", amount: "0.009" });
    expect(confirmed.message).toMatch(/more than the 0\.003 USDC its settlement reported/);
  });

  it("refuses a ceiling over the daily limit before signing, though the actual use would fit", async () => {
    const service = fakeMeteredService(offlineNetwork, { onPayment: () => meteredAnswer(TX, 1_000n) });
    const outcome = await runPurchase(dependencies(service), request(service, { limits: limits(CEILING - 1n) }));
    expect(outcome).toMatchObject({ status: "failed", reason: "limit-exceeded" });
    expect(service.received).toEqual([]);
    const perPayment = await runPurchase(dependencies(service), request(service, { intent: "call-2", limits: limits(1_000_000n, CEILING - 1n) }));
    expect(perPayment).toMatchObject({
      status: "failed",
      reason: "limit-exceeded",
      message: expect.stringMatching(/^A ceiling of 0\.05 USDC is over your per-payment limit/),
    });
  });

  it("refuses before signing when the wallet has not approved Permit2 for the ceiling", async () => {
    chain.permit2Approved = CEILING - 1n;
    const service = fakeMeteredService(offlineNetwork, { onPayment: () => meteredAnswer(TX, 1_000n) });
    const outcome = await runPurchase(dependencies(service), request(service));
    expect(outcome).toMatchObject({
      status: "failed",
      reason: "payment-failed",
      message: expect.stringMatching(/has not approved Permit2.*nothing was signed/),
    });
    expect(service.received).toEqual([]);
    expect(await reserved(agent.address)).toBe(0n);
  });

  it("frees the unused ceiling for the next payment of the same request and of the day", async () => {
    const service = fakeMeteredService(offlineNetwork, {
      onPayment: (permit) => {
        chain.settlePermit(permit.nonce, 5_000n, TX);
        return meteredAnswer(TX, 5_000n);
      },
    });
    const exact = fakePaidService(offlineNetwork, { amount: 45_000n, onPayment: (authorization) => paidAnswer(chain.settle(authorization.nonce)) });
    // Per request and per day 0.05: the ceiling fills it, the 0.045 exact payment fits after.
    const tight = { limits: limits(CEILING, 1_000_000n, CEILING) };
    expect(await runPurchase(dependencies(service), request(service, tight))).toMatchObject({ status: "delivered" });
    expect(await runPurchase(dependencies(exact), request(exact, { ...tight, intent: "call-2" }))).toMatchObject({ status: "delivered" });
    expect(await store.ledger.spentToday(agent.address, { now: Date.now() })).toEqual({ settled: 50_000n, reserved: 0n });
  });

  it("chooses exact when both are offered and the price fits, upto when only the ceiling does", async () => {
    const both = (exactPrice: bigint) =>
      fakeMeteredService(offlineNetwork, {
        exactPrice,
        onPayment: (permit) => {
          if (permit.scheme === "upto") chain.settlePermit(permit.nonce, 4_000n, TX);
          return permit.scheme === "upto" ? meteredAnswer(TX, 4_000n) : refusedAnswer();
        },
      });
    const schemeChosen = async (exactPrice: bigint, perPayment: bigint) => {
      resetPurchaseHarness();
      const service = both(exactPrice);
      await runPurchase(dependencies(service), request(service, { limits: limits(1_000_000n, perPayment) }));
      return service.received[0]?.scheme;
    };
    // Exact 0.04 under a 0.05 ceiling: exact, whenever it fits.
    expect(await schemeChosen(40_000n, 1_000_000n)).toBe("exact");
    expect(await schemeChosen(40_000n, 45_000n)).toBe("exact");
    // Exact 0.06 over a 0.055 per-payment limit, the 0.05 ceiling under it: upto.
    expect(await schemeChosen(60_000n, 55_000n)).toBe("upto");
    // Both fit, and the ceiling is below the exact price: upto's worst case is the cheaper.
    expect(await schemeChosen(60_000n, 1_000_000n)).toBe("upto");
    // Neither fits: refused on the exact price, nothing sent.
    expect(await schemeChosen(60_000n, 10_000n)).toBeUndefined();
  });

  it("with a claim the chain does not show, Permit2's bitmap decides: settled later at its amount", async () => {
    let nonce = 0n;
    const service = fakeMeteredService(offlineNetwork, {
      onPayment: (permit) => {
        nonce = permit.nonce;
        chain.otherTransactions.add(TX);
        return meteredAnswer(TX, 3_000n);
      },
    });
    const late = `0x${"1e".repeat(32)}` as const;
    clock.onSleep = () => {
      if (nonce && !chain.permits.has(nonce)) chain.settlePermit(nonce, 8_000n, late);
    };
    const outcome = await runPurchase(dependencies(service), request(service));
    expect(outcome).toMatchObject({ status: "failed", txHash: late });
    expect((await store.ledger.entries(agent.address, { now: Date.now() })).map((entry) => [entry.amount, entry.txHash])).toEqual([[8_000n, late]]);
    expect(await reserved(agent.address)).toBe(0n);
  });

  it("with no settlement at all, holds the ceiling until the permit expired unused, then gives it back", async () => {
    const service = fakeMeteredService(offlineNetwork, { onPayment: () => refusedAnswer() });
    const outcome = await runPurchase(dependencies(service), request(service));
    const permit = service.received[0]!;
    expect(outcome).toMatchObject({ status: "failed", message: expect.stringMatching(/expired unused, so nothing was spent/) });
    expect(clock.now()).toBeGreaterThan(Number(permit.deadline) * 1000);
    expect(await reserved(agent.address)).toBe(0n);
    expect(chain.reads).toBeGreaterThan(1);
  });

  it("a service that used nothing and settled nothing delivers once the permit expired unused", async () => {
    const service = fakeMeteredService(offlineNetwork, { onPayment: () => meteredAnswer("", 0n, { unitsUsed: 0 }) });
    const outcome = await runPurchase(dependencies(service), request(service));
    const permit = service.received[0]!;
    expect(outcome).toMatchObject({ status: "free", data: { content: { analysis: { characters: 250 } } } });
    expect(clock.now()).toBeGreaterThan(Number(permit.deadline) * 1000);
    expect(events.map((event) => event.payment.status)).toEqual(["quoted", "signing", "verifying", "pending", "delivered"]);
    expect(events.at(-1)?.payment).toMatchObject({ amount: "0", ceiling: "0.05" });
    expect(await store.ledger.spentToday(agent.address, { now: Date.now() })).toEqual({ settled: 0n, reserved: 0n });
  });
});

describe("a person's wallet and an upto service's Permit2 allowance", () => {
  const asUser = (service: Parameters<typeof agentRequest>[0]) => request(service, { payer: { kind: "user", address: user.address } });

  it("asks for an allowance of exactly the ceiling when the wallet's is short", async () => {
    const service = fakeMeteredService(offlineNetwork, { onPayment: () => meteredAnswer(TX, 1_000n) });
    chain.permit2Approved = CEILING - 1n;
    const short = await runPurchase(dependencies(service), asUser(service));
    expect(short).toMatchObject({
      status: "awaiting-approval",
      approval: { scheme: "upto", ceiling: "0.05", permit2Approval: { spender: PERMIT2, token: offlineNetwork.usdc, amount: "0.05" } },
    });
    expect(service.received).toEqual([]);
  });

  it("asks for none when the wallet already allows the ceiling", async () => {
    const service = fakeMeteredService(offlineNetwork, { onPayment: () => meteredAnswer(TX, 1_000n) });
    chain.permit2Approved = CEILING;
    const enough = await runPurchase(dependencies(service), asUser(service));
    expect(enough).toMatchObject({ status: "awaiting-approval", approval: { scheme: "upto", ceiling: "0.05" } });
    expect(enough.status === "awaiting-approval" ? enough.approval.permit2Approval : "no approval").toBeUndefined();
  });
});
