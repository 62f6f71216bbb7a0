/**
 * The channel path through runPurchase, with a small fake of the channel ledger (the interface
 * of lib/channels/channel-ledger.ts, kept in this file) and a scripted channel service on the
 * transport ports: a busy channel is waited for, a deposit is sized and capped by the ledger's
 * room, a corrective 402 resyncs and retries once, a refusal abandons with nothing spent.
 */
import { signVoucher } from "@x402/evm/batch-settlement/client";
import { toClientEvmSigner } from "@x402/evm";
import { beforeEach, describe, expect, it } from "vitest";
import { agent, chain, clock, events, resetPurchaseHarness, store, tracker } from "../../../../tests/support/purchase-harness";
import { offlineNetwork } from "../../../../tests/support/offline-fixtures";
import type { AcquireResult, ChannelLedger, ChannelState } from "../../../channels/channel-ledger";
import type { PaidAnswer, PaidCall, PurchaseDependencies, PurchaseRequest } from "../purchase-types";
import { runPurchase } from "../run-purchase";
import { channelAccessOf } from "./pay-through-channel";

const PRICE = 1_000n;
const PAYEE = "0x1111111111111111111111111111111111111111";
const URL_ = "http://127.0.0.1:9/ticks?symbol=BTC";

const option = (extra: Record<string, unknown> = {}) => ({
  scheme: "batch-settlement",
  network: offlineNetwork.caip2,
  amount: PRICE.toString(),
  asset: offlineNetwork.usdc,
  payTo: PAYEE,
  maxTimeoutSeconds: 300,
  extra: { name: "USD Coin", version: "2", receiverAuthorizer: "0x2222222222222222222222222222222222222222", withdrawDelay: 900, ...extra },
});

type Step = { method: keyof ChannelLedger; input: Record<string, unknown> };

/** The fake ledger: scripted acquire answers, every call kept. */
function fakeLedger(acquires: AcquireResult[], refuseDeposit = false): ChannelLedger & { steps: Step[] } {
  const steps: Step[] = [];
  const record = (method: keyof ChannelLedger) => (input: Record<string, unknown>) => {
    steps.push({ method, input });
    return Promise.resolve();
  };
  return {
    steps,
    acquire: (input) => {
      steps.push({ method: "acquire", input });
      const next = acquires.shift();
      if (!next) throw new Error("no acquire scripted");
      return Promise.resolve(next);
    },
    reserveDeposit: (input) => {
      steps.push({ method: "reserveDeposit", input });
      return Promise.resolve(refuseDeposit ? { status: "refused", reason: "daily", spent: 0n, reserved: 0n, dailyLimit: 1n } : { ok: true });
    },
    settle: record("settle"),
    abandon: record("abandon"),
    resync: record("resync"),
    refunded: record("refunded"),
    idle: () => Promise.resolve([]),
    claimForRefund: () => Promise.resolve([]),
    recordClaims: () => Promise.resolve(0),
    unpaidClaims: () => Promise.resolve([]),
    recordPayout: () => Promise.resolve(0),
    refundFailed: () => Promise.resolve(),
    refundRefused: () => Promise.resolve(0),
    claimForWithdrawal: () => Promise.resolve([]),
    withdrawalStarted: () => Promise.resolve(),
    claimDueWithdrawals: () => Promise.resolve([]),
    withdrawalReleased: () => Promise.resolve(),
    get: () => Promise.resolve(undefined),
    ofPayer: () => Promise.resolve([]),
  };
}

const state = (charged: bigint, deposited: bigint): ChannelState => ({
  channelId: `0x${"ab".repeat(32)}`,
  deposited,
  charged,
  signedMax: charged,
  totalClaimed: 0n,
  state: "open",
});

/** A channel service's answer: delivered with the official server's PAYMENT-RESPONSE fields. */
function delivered(chargedCumulative: bigint, transaction = ""): PaidAnswer {
  return {
    delivered: true,
    content: new Response(JSON.stringify({ symbol: "BTC", price: 1 }), { headers: { "content-type": "application/json" } }),
    settlement: {
      success: true,
      transaction,
      extra: { chargedAmount: PRICE.toString(), channelState: { chargedCumulativeAmount: chargedCumulative.toString() } },
    },
    refusal: () => Promise.resolve(undefined),
    description: "delivered",
  };
}

function refused(paymentRequired?: PaidAnswer["paymentRequired"]): PaidAnswer {
  return {
    delivered: false,
    content: new Response(null, { status: 402 }),
    settlement: undefined,
    refusal: () => Promise.resolve({ stage: "verification", reason: "voucher_refused" }),
    refused: true,
    ...(paymentRequired ? { paymentRequired } : {}),
    description: "402",
  };
}

let sent: PaidCall[];
beforeEach(() => {
  resetPurchaseHarness();
  sent = [];
});

function deps(ledger: ChannelLedger | undefined): PurchaseDependencies {
  return {
    network: offlineNetwork,
    fetch: () => Promise.reject(new Error("no HTTP in this test")),
    chain,
    ledger: store.ledger,
    quoteSecret: "unit-test-quote-secret-0123456789abcdef",
    now: clock.now,
    sleep: clock.sleep,
    ...(ledger ? { channels: ledger } : {}),
  };
}

let intents = 0;
function request(answers: PaidAnswer[], accepts: Record<string, unknown>[] = [option({ minDeposit: "50000" })]): PurchaseRequest {
  intents += 1;
  return {
    service: "tick-feed",
    url: URL_,
    method: "GET",
    intent: `call-${intents}`,
    ask: () => Promise.resolve({ status: "payment-required", paymentRequired: { x402Version: 2, resource: { url: URL_ }, accepts } }),
    send: (call) => {
      sent.push(call);
      const answer = answers.shift();
      if (!answer) throw new Error("no answer scripted");
      return Promise.resolve(answer);
    },
    payer: { kind: "agent", account: agent },
    limits: { perPayment: 1_000_000n, perRequest: 1_000_000n, daily: 10_000_000n },
    maxPayments: 3,
    tracker,
    deadline: clock.now() + 30_000,
  };
}

const payloadOf = (call: PaidCall | undefined) =>
  (call?.payment.payload ?? {}) as { type?: string; voucher?: { maxClaimableAmount: string; channelId: `0x${string}` }; deposit?: { amount: string } };

describe("paying through a channel", () => {
  it("waits while another call holds the channel, then signs the next voucher and settles what the service charged", async () => {
    const ledger = fakeLedger([
      { status: "busy", retryInMs: 200 },
      { status: "busy", retryInMs: 200 },
      { status: "voucher", lease: "lease-1", channel: state(5_000n, 50_000n), cumulative: 6_000n },
    ]);
    const startedAt = clock.now();
    const outcome = await runPurchase(deps(ledger), request([delivered(6_000n)]));
    expect(outcome).toMatchObject({ status: "delivered", amount: "0.001", voucher: { cumulative: "6000" } });
    expect(clock.now() - startedAt).toBeGreaterThanOrEqual(400);
    expect(ledger.steps.map((step) => step.method)).toEqual(["acquire", "acquire", "acquire", "settle"]);
    expect(payloadOf(sent[0])).toMatchObject({ type: "voucher", voucher: { maxClaimableAmount: "6000" } });
    expect(ledger.steps.at(-1)?.input).toMatchObject({ lease: "lease-1", charged: 6_000n, chargedAmount: PRICE, signedMax: 6_000n });
    expect(events.map((event) => event.payment.status)).toEqual(["quoted", "signing", "verifying", "confirmed", "delivered"]);
    expect(events.find((event) => event.payment.status === "verifying")?.payment.message).toMatch(/voucher 6 on channel 0x/);
    // The ledger journals the channel's rows: the tracker wrote none.
    expect(await store.journal.get(outcome.status === "delivered" ? outcome.paymentId : "")).toBeUndefined();
  });

  it("sizes a deposit at the suggested deposit or 100 prices, capped by the ledger's room, and sends it with the first voucher", async () => {
    const roomy = fakeLedger([{ status: "deposit-needed", lease: "lease-1", channel: undefined, room: 10_000_000n, cumulative: PRICE }]);
    const deposit = `0x${"de".repeat(32)}`;
    await runPurchase(deps(roomy), request([delivered(PRICE, deposit)], [option({ minDeposit: "250000" })]));
    expect(roomy.steps.find((step) => step.method === "reserveDeposit")?.input).toMatchObject({ amount: 250_000n });
    expect(payloadOf(sent[0])).toMatchObject({ type: "deposit", deposit: { amount: "250000" }, voucher: { maxClaimableAmount: "1000" } });
    expect(roomy.steps.at(-1)).toMatchObject({ method: "settle", input: { deposit: { total: 250_000n, txHash: deposit } } });

    sent = [];
    const tight = fakeLedger([{ status: "deposit-needed", lease: "lease-2", channel: undefined, room: 30_000n, cumulative: PRICE }]);
    await runPurchase(deps(tight), request([delivered(PRICE, deposit)], [option()]));
    // 100 prices would be 100 000; the room allows 30 000.
    expect(tight.steps.find((step) => step.method === "reserveDeposit")?.input).toMatchObject({ amount: 30_000n });

    sent = [];
    const none = fakeLedger([{ status: "deposit-needed", lease: "lease-3", channel: undefined, room: 999n, cumulative: PRICE }]);
    const noRoom = await runPurchase(deps(none), request([], [option()]));
    expect(noRoom).toMatchObject({
      status: "failed",
      reason: "limit-exceeded",
      message: expect.stringMatching(/needs at least 0\.001 USDC, more than the 0\.000999 USDC left/),
    });
    expect(none.steps.map((step) => step.method)).toEqual(["acquire", "abandon"]);
    expect(none.steps.at(-1)?.input).toMatchObject({ spent: "nothing" });
    expect(sent).toEqual([]);
    expect(tracker.committedAmount).toBe(2n * PRICE);
  });

  it("tops up a channel whose deposit no longer covers the call, the new voucher counting on from the service's charge", async () => {
    const ledger = fakeLedger([{ status: "deposit-needed", lease: "lease-1", channel: state(100_000n, 100_000n), room: 10_000_000n, cumulative: 101_000n }]);
    const deposit = `0x${"de".repeat(32)}`;
    const outcome = await runPurchase(deps(ledger), request([delivered(101_000n, deposit)], [option()]));
    expect(outcome).toMatchObject({ status: "delivered", txHash: deposit, voucher: { cumulative: "101000" } });
    expect(payloadOf(sent[0])).toMatchObject({ type: "deposit", deposit: { amount: "100000" }, voucher: { maxClaimableAmount: "101000" } });
    expect(ledger.steps.at(-1)?.input).toMatchObject({ charged: 101_000n, signedMax: 101_000n, deposit: { total: 200_000n, txHash: deposit } });
  });

  it("calls of this process on one channel take turns: the second asks the ledger only once the first settled", async () => {
    let held = false;
    const order: string[] = [];
    let charged = 5_000n;
    const ledger: ChannelLedger = {
      ...fakeLedger([]),
      acquire: () => {
        if (held) {
          order.push("busy");
          return Promise.resolve({ status: "busy", retryInMs: 20 });
        }
        held = true;
        order.push("acquire");
        return Promise.resolve({ status: "voucher", lease: "lease", channel: state(charged, 50_000n), cumulative: charged + PRICE });
      },
      settle: (input) => {
        order.push("settle");
        charged = input.charged;
        held = false;
        return Promise.resolve();
      },
    };
    const first = request([delivered(6_000n)]);
    const second = request([delivered(7_000n)]);
    const [one, two] = await Promise.all([runPurchase(deps(ledger), first), runPurchase(deps(ledger), second)]);
    expect([one, two]).toMatchObject([{ status: "delivered" }, { status: "delivered" }]);
    expect(order).toEqual(["acquire", "settle", "acquire", "settle"]);
    expect(sent.map((call) => payloadOf(call).voucher?.maxClaimableAmount)).toEqual(["6000", "7000"]);
  });

  it("answers before the ledger's settle has finished; the channel's next call and the request's recorded() wait for it", async () => {
    const order: string[] = [];
    let charged = 5_000n;
    const gates: (() => void)[] = [];
    const ledger: ChannelLedger = {
      ...fakeLedger([]),
      acquire: () => {
        order.push("acquire");
        return Promise.resolve({ status: "voucher", lease: "lease", channel: state(charged, 50_000n), cumulative: charged + PRICE });
      },
      settle: (input) => {
        order.push("settle");
        return new Promise<void>((resolve) =>
          gates.push(() => {
            charged = input.charged;
            order.push("settled");
            resolve();
          }),
        );
      },
    };
    const ticks = async () => {
      for (let index = 0; index < 20; index += 1) await new Promise((resolve) => setImmediate(resolve));
    };
    const first = await runPurchase(deps(ledger), request([delivered(6_000n)]));
    expect(first).toMatchObject({ status: "delivered" });
    let recorded: boolean | undefined;
    void tracker.recorded().then((value) => (recorded = value));
    const second = runPurchase(deps(ledger), request([delivered(7_000n)]));
    await ticks();
    // The first call's settle is still running: the second has not asked the ledger, and the
    // request's journal is not yet complete.
    expect(order).toEqual(["acquire", "settle"]);
    expect(recorded).toBeUndefined();
    gates.shift()!();
    await ticks();
    expect(recorded).toBe(true);
    expect(order).toEqual(["acquire", "settle", "settled", "acquire", "settle"]);
    gates.shift()!();
    expect(await second).toMatchObject({ status: "delivered" });
    expect(sent.map((call) => payloadOf(call).voucher?.maxClaimableAmount)).toEqual(["6000", "7000"]);
  });

  it("a settle that fails after the answer makes the request's recorded() false (the journal is behind)", async () => {
    const ledger: ChannelLedger = {
      ...fakeLedger([{ status: "voucher", lease: "lease", channel: state(5_000n, 50_000n), cumulative: 6_000n }]),
      settle: () => Promise.reject(new Error("database gone")),
    };
    expect(await runPurchase(deps(ledger), request([delivered(6_000n)]))).toMatchObject({ status: "delivered" });
    expect(await tracker.recorded()).toBe(false);
  });

  describe("a repeat call's early turn", () => {
    // Each test its own URL: what this instance remembers of a URL is kept for the process.
    let path = 0;
    const repeatOf = (answers: PaidAnswer[], accepts: Record<string, unknown>[] = [option({ minDeposit: "50000" })], gate?: Promise<void>) => {
      const url = `http://127.0.0.1:9/ticks-early-${path}?symbol=BTC`;
      const base = request(answers, accepts);
      const ask = base.ask!;
      return { ...base, url, ask: async (unpaid: Parameters<typeof ask>[0]) => (await gate, ask(unpaid)) };
    };
    const voucher = (lease: string, charged: bigint, cumulative = charged + PRICE): AcquireResult => ({
      status: "voucher",
      lease,
      channel: state(charged, 50_000n),
      cumulative,
    });
    beforeEach(() => {
      path += 1;
    });

    it("acquires beside the unpaid request and pays on that acquisition: one statement before the voucher, under the purchase's id", async () => {
      const ledger = fakeLedger([voucher("lease-1", 5_000n), voucher("lease-2", 6_000n)]);
      expect(await runPurchase(deps(ledger), repeatOf([delivered(6_000n)]))).toMatchObject({ status: "delivered" });
      expect(ledger.steps.map((step) => step.method)).toEqual(["acquire", "settle"]);

      let open!: () => void;
      const gate = new Promise<void>((resolve) => {
        open = resolve;
      });
      const second = runPurchase(deps(ledger), repeatOf([delivered(7_000n)], undefined, gate));
      for (let index = 0; index < 20; index += 1) await new Promise((resolve) => setImmediate(resolve));
      // The service has not answered the unpaid request yet, and the ledger already acquired.
      expect(ledger.steps.map((step) => step.method)).toEqual(["acquire", "settle", "acquire"]);
      open();
      const outcome = await second;
      expect(outcome).toMatchObject({ status: "delivered", voucher: { cumulative: "7000" } });
      expect(ledger.steps.map((step) => step.method)).toEqual(["acquire", "settle", "acquire", "settle"]);
      const [early, settle] = ledger.steps.slice(2);
      expect(early?.input).toMatchObject({ price: PRICE, journal: { paymentId: outcome.status === "delivered" ? outcome.paymentId : "" } });
      expect(settle?.input).toMatchObject({ lease: "lease-2", reservationId: early?.input.reservationId, charged: 7_000n });
      expect(payloadOf(sent.at(-1))).toMatchObject({ type: "voucher", voucher: { maxClaimableAmount: "7000" } });
    });

    it("sends the unpaid request before the early acquisition's statement: the service's answer is the longer wait", async () => {
      const ledger = fakeLedger([voucher("lease-1", 5_000n), voucher("lease-2", 6_000n)]);
      expect(await runPurchase(deps(ledger), repeatOf([delivered(6_000n)]))).toMatchObject({ status: "delivered" });
      const order: string[] = [];
      const acquire = ledger.acquire.bind(ledger);
      ledger.acquire = (input) => (order.push("acquire"), acquire(input));
      const repeat = repeatOf([delivered(7_000n)]);
      const ask = repeat.ask;
      // A real fetch writes its request after some promise jobs and a tick of its own, within
      // the same turn of the event loop.
      const sentLater = async (unpaid: Parameters<typeof ask>[0]) => {
        for (let hop = 0; hop < 10; hop += 1) await Promise.resolve();
        await new Promise<void>((resolve) => process.nextTick(resolve));
        order.push("unpaid request");
        return ask(unpaid);
      };
      const outcome = await runPurchase(deps(ledger), { ...repeat, ask: sentLater });
      expect(outcome).toMatchObject({ status: "delivered", voucher: { cumulative: "7000" } });
      expect(order).toEqual(["unpaid request", "acquire"]);
    });

    it("an offer that no longer fits (another price) gives the early turn back unused, then acquires for the quote", async () => {
      const ledger = fakeLedger([voucher("lease-1", 5_000n), voucher("lease-2", 6_000n), voucher("lease-3", 6_000n, 8_000n)]);
      await runPurchase(deps(ledger), repeatOf([delivered(6_000n)]));
      const dearer = { ...option({ minDeposit: "50000" }), amount: "2000" };
      const outcome = await runPurchase(
        deps(ledger),
        repeatOf(
          [
            {
              ...delivered(8_000n),
              settlement: { ...delivered(8_000n).settlement!, extra: { chargedAmount: "2000", channelState: { chargedCumulativeAmount: "8000" } } },
            },
          ],
          [dearer],
        ),
      );
      expect(outcome).toMatchObject({ status: "delivered", amount: "0.002" });
      expect(ledger.steps.map((step) => step.method)).toEqual(["acquire", "settle", "acquire", "abandon", "acquire", "settle"]);
      const [early, abandon, acquire] = ledger.steps.slice(2);
      expect(abandon?.input).toMatchObject({ lease: "lease-2", reservationId: early?.input.reservationId, spent: "unused" });
      expect(acquire?.input).toMatchObject({ price: 2_000n });
      expect(acquire?.input.reservationId).not.toBe(early?.input.reservationId);
    });

    it("a purchase refused before it pays gives the early turn back unused, the refusal under the id its row was journaled with", async () => {
      const ledger = fakeLedger([voucher("lease-1", 5_000n), voucher("lease-2", 6_000n)]);
      await runPurchase(deps(ledger), repeatOf([delivered(6_000n)]));
      const refused_ = { ...repeatOf([]), limits: { perPayment: PRICE - 1n, perRequest: 1_000_000n, daily: 10_000_000n } };
      const outcome = await runPurchase(deps(ledger), refused_);
      expect(outcome).toMatchObject({ status: "failed", reason: "limit-exceeded" });
      expect(ledger.steps.map((step) => step.method)).toEqual(["acquire", "settle", "acquire", "abandon"]);
      const [early, abandon] = ledger.steps.slice(2);
      expect(early?.input).toMatchObject({ journal: { paymentId: outcome.status === "failed" ? outcome.paymentId : "" } });
      expect(abandon?.input).toMatchObject({ lease: "lease-2", reservationId: early?.input.reservationId, spent: "unused" });
      expect(sent).toHaveLength(1);
    });
  });

  it("a channel being withdrawn is not waited for: the call fails at once in words, nothing signed, its claim released", async () => {
    const ledger = fakeLedger([{ status: "busy", retryInMs: 20, withdrawing: true }]);
    const startedAt = clock.now();
    const outcome = await runPurchase(deps(ledger), request([]));
    expect(outcome).toMatchObject({ status: "failed", reason: "payment-failed", message: expect.stringMatching(/being withdrawn.*nothing was signed/) });
    expect(clock.now() - startedAt).toBe(0);
    expect(ledger.steps.map((step) => step.method)).toEqual(["acquire"]);
    expect(sent).toEqual([]);
    expect(tracker.committedAmount).toBe(0n);
  });

  it("a corrective 402 proven by this wallet's own voucher resyncs the channel and retries once with the service's count", async () => {
    const ledger = fakeLedger([{ status: "voucher", lease: "lease-1", channel: state(5_000n, 50_000n), cumulative: 6_000n }]);
    // The chain's view of the channel, as the client reads it to check the service's proof.
    Object.assign(chain, { readContract: () => Promise.resolve([50_000n, 0n]) });
    const answers: PaidAnswer[] = [];
    const request_ = request(answers);
    const send = request_.send!;
    request_.send = async (call) => {
      if (sent.length === 0) {
        const { channelId } = payloadOf(call).voucher!;
        const proof = await signVoucher(toClientEvmSigner(agent), channelId, "7000", offlineNetwork.caip2);
        const extra = {
          ...option().extra,
          channelState: { chargedCumulativeAmount: "7000" },
          voucherState: { signedMaxClaimable: "7000", signature: proof.signature },
        };
        answers.push(
          refused({
            x402Version: 2,
            error: "invalid_batch_settlement_evm_cumulative_amount_mismatch",
            resource: { url: URL_ },
            accepts: [{ ...option(), extra }],
          }),
          delivered(8_000n),
        );
      }
      return send(call);
    };
    const outcome = await runPurchase(deps(ledger), request_);
    expect(outcome).toMatchObject({ status: "delivered", voucher: { cumulative: "8000" } });
    expect(sent.map((call) => payloadOf(call).voucher?.maxClaimableAmount)).toEqual(["6000", "8000"]);
    expect(ledger.steps.map((step) => step.method)).toEqual(["acquire", "resync", "settle"]);
    expect(ledger.steps[1]?.input).toMatchObject({ lease: "lease-1", channel: { charged: 7_000n, signedMax: 7_000n, deposited: 50_000n } });
    expect(events.find((event) => event.payment.status === "confirmed")?.payment.message).toMatch(/had counted 0\.007 USDC/);
  });

  it("a second corrective 402 is not followed: the voucher is abandoned, nothing spent", async () => {
    const ledger = fakeLedger([{ status: "voucher", lease: "lease-1", channel: state(5_000n, 50_000n), cumulative: 6_000n }]);
    const outcome = await runPurchase(deps(ledger), request([refused(), refused()]));
    expect(outcome).toMatchObject({ status: "failed", reason: "payment-failed", message: expect.stringMatching(/voucher was refused, so nothing was spent/) });
    expect(sent).toHaveLength(1);
    expect(ledger.steps.map((step) => step.method)).toEqual(["acquire", "abandon"]);
    expect(ledger.steps[1]?.input).toMatchObject({ lease: "lease-1", spent: "nothing" });
    expect(tracker.committedAmount).toBe(0n);
  });

  it("a channel the service does not find, and the chain holds nothing for, is set empty under the lease: the next call opens it with a deposit", async () => {
    const notFound = (): PaidAnswer => ({
      ...refused(),
      refusal: () => Promise.resolve({ stage: "verification", reason: "invalid_batch_settlement_evm_channel_not_found" }),
    });
    // The chain (a local one started again) has no balance and no claims for this channel.
    Object.assign(chain, { readContract: () => Promise.resolve([0n, 0n]) });
    const ledger = fakeLedger([{ status: "voucher", lease: "lease-1", channel: state(5_000n, 50_000n), cumulative: 6_000n }]);
    const outcome = await runPurchase(deps(ledger), request([notFound()]));
    expect(outcome).toMatchObject({
      status: "failed",
      reason: "payment-failed",
      message: expect.stringMatching(/nothing was spent\. The chain holds no such channel/),
    });
    expect(ledger.steps.map((step) => step.method)).toEqual(["acquire", "resync", "abandon"]);
    expect(ledger.steps[1]?.input).toMatchObject({ lease: "lease-1", channel: { charged: 0n, deposited: 0n, totalClaimed: 0n, signedMax: 0n } });
    expect(ledger.steps[2]?.input).toMatchObject({ lease: "lease-1", spent: "nothing" });
    expect(tracker.committedAmount).toBe(0n);

    // Where the chain still holds the channel's deposit, the ledger is left as it is.
    Object.assign(chain, { readContract: () => Promise.resolve([50_000n, 0n]) });
    const kept = fakeLedger([{ status: "voucher", lease: "lease-2", channel: state(5_000n, 50_000n), cumulative: 6_000n }]);
    const second = await runPurchase(deps(kept), request([notFound()]));
    expect(second).toMatchObject({ status: "failed", message: expect.not.stringMatching(/no such channel/) });
    expect(kept.steps.map((step) => step.method)).toEqual(["acquire", "abandon"]);
  });

  it("a service that answers otherwise after the voucher left may have counted it: abandoned as unknown, the request's claim kept", async () => {
    const ledger = fakeLedger([{ status: "voucher", lease: "lease-1", channel: state(5_000n, 50_000n), cumulative: 6_000n }]);
    const failure: PaidAnswer = {
      ...refused(),
      refused: undefined,
      content: new Response("oops", { status: 500 }),
      refusal: () => Promise.resolve(undefined),
      description: "tick-feed answered HTTP 500 to the payment.",
    };
    const outcome = await runPurchase(deps(ledger), request([failure]));
    expect(outcome).toMatchObject({ status: "failed", message: expect.stringMatching(/may have counted the voucher/) });
    expect(ledger.steps[1]?.input).toMatchObject({ spent: "unknown" });
    expect(tracker.committedAmount).toBe(PRICE);
  });

  it("is not chosen without a channel ledger, for a person's wallet or a grant's payer: another option is, or a reason", async () => {
    const exact: Record<string, unknown> = { ...option(), scheme: "exact", extra: { name: "USD Coin", version: "2" } };
    const noLedger = await runPurchase(deps(undefined), request([], [option()]));
    expect(noLedger).toMatchObject({
      status: "failed",
      message: expect.stringMatching(/paid through a payment channel only, and this deployment keeps no channel ledger/),
    });
    expect(channelAccessOf({}, { kind: "agent" })).toMatchObject({ ok: false });
    expect(channelAccessOf({ channels: fakeLedger([]) }, { kind: "user" })).toMatchObject({
      ok: false,
      reason: expect.stringMatching(/not from a person's own wallet/),
    });
    expect(channelAccessOf({ channels: fakeLedger([]) }, { kind: "agent", funding: {} })).toMatchObject({ ok: false, reason: expect.stringMatching(/grant/) });
    expect(channelAccessOf({ channels: fakeLedger([]) }, { kind: "agent" })).toEqual({ ok: true });
    const user = await runPurchase(deps(fakeLedger([])), { ...request([], [option(), exact]), payer: { kind: "user", address: agent.address } });
    expect(user).toMatchObject({ status: "awaiting-approval" });
    expect(events.filter((event) => event.payment.status === "awaiting-approval").at(-1)?.payment.message).not.toMatch(/channel/);
  });
});
