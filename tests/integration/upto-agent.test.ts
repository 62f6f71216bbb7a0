/**
 * The agent paying the local world's metered (`upto`) services through its own purchase path,
 * wired as the chat route wires it (guarded fetch, chain reader, memory store and journal):
 *
 * 1. An honest meter: the agent reserves the ceiling, signs a Permit2 permit, and the chain shows
 *    a transfer of what the call used, below the ceiling; the daily budget counts that amount.
 * 2. Eight purchases at once against a daily budget that fits three ceilings: at no moment do
 *    settled and reserved amounts pass the budget counted at ceilings; once they settle, the
 *    difference is free and a later purchase fits.
 * 3. A settlement the service never reports (the facilitator gives up waiting): Permit2's nonce
 *    bitmap shows the permit spent, its transaction is found by its calldata, and the amount it
 *    moved is what counts.
 * 4. The hostile meter settles its whole ceiling for one unit of use: reported as over-settled,
 *    and never above the ceiling, which the proxy refuses on chain for our own signed permit.
 */
import { decodePaymentSignatureHeader } from "@x402/core/http";
import { x402UptoPermit2ProxyABI } from "@x402/evm";
import { BaseError, ContractFunctionRevertedError, createPublicClient, erc20Abi, http, parseEventLogs, type Address, type Hex } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ANVIL_MNEMONIC, devAccounts, type Devnet } from "../../devnet";
import { PaymentTracker } from "../../lib/agent/purchase/payment-tracker";
import { runPurchase, type PurchaseDependencies, type PurchaseOutcome } from "../../lib/agent/purchase/run-purchase";
import { createMemoryStore } from "../../lib/store/create-memory-store";
import type { Store } from "../../lib/store/store-types";
import { StreamWriter, type PaymentEvent } from "../../lib/stream";
import { UPTO_PROXY } from "../../lib/x402/upto-permit2";
import { startChatHarness, type ChatHarness } from "../support/chat-harness";

let harness: ChatHarness;
let devnet: Devnet;
let chain: ReturnType<typeof createPublicClient>;
let store: Store;
const accounts = devAccounts(ANVIL_MNEMONIC);
const agent = privateKeyToAccount(accounts.agent.privateKey);
/** Every payment header the agent sent, by payment (the quote's Permit2 nonce). */
const sentPayments: Record<string, unknown>[] = [];

beforeAll(async () => {
  store = createMemoryStore();
  harness = await startChatHarness({ store, devnet: { settleTimeoutMs: 3_000 } });
  devnet = harness.devnet;
  chain = createPublicClient({ transport: http(devnet.rpcUrl) });
}, 120_000);

afterAll(async () => {
  await harness?.stop();
});

function service(name: string): Devnet["services"][number] {
  const found = devnet.services.find((candidate) => candidate.name === name);
  if (!found?.metering || found.scheme !== "upto" || !found.amount) throw new Error(`the local world has no metered ${name}`);
  return found;
}

/** The route's dependencies, with the paid requests' headers kept and the ledger's reservations checked. */
function purchaseDeps(onReserved?: () => Promise<void>): PurchaseDependencies {
  const { deps } = harness;
  return {
    network: deps.network,
    fetch: (input, init) => {
      const header = new Headers(init?.headers).get("payment-signature");
      if (header) sentPayments.push(decodePaymentSignatureHeader(header) as unknown as Record<string, unknown>);
      return deps.fetch(input, init);
    },
    chain: deps.chain,
    ledger: {
      ...store.ledger,
      reserve: async (input) => {
        const result = await store.ledger.reserve(input);
        if (result.ok) await onReserved?.();
        return result;
      },
      commit: (id, options) => store.ledger.commit(id, options),
      release: (id) => store.ledger.release(id),
      spentToday: (payer, clock) => store.ledger.spentToday(payer, clock),
      entries: (payer, clock) => store.ledger.entries(payer, clock),
      spentInScope: (key, clock) => store.ledger.spentInScope(key, clock),
    },
    quoteSecret: deps.quoteSecret,
    now: deps.now,
    agentAuthorizationTtlSeconds: deps.settings.agentAuthorizationTtlSeconds,
  };
}

type Bought = { outcome: PurchaseOutcome; events: PaymentEvent[]; tracker: PaymentTracker };

let sequence = 0;
async function buy(
  name: string,
  call: { query?: Record<string, string>; body?: Record<string, unknown> },
  daily: bigint,
  deps = purchaseDeps(),
): Promise<Bought> {
  const meter = service(name);
  const url = call.query ? `${meter.url}?${new URLSearchParams(call.query)}` : meter.url;
  const events: PaymentEvent[] = [];
  const writer = new StreamWriter({ framing: "plain", keepAliveMs: 0 });
  void writer.readable.pipeTo(new WritableStream()).catch(() => undefined);
  const record = writer.payment.bind(writer);
  writer.payment = (payment) => {
    events.push(payment as PaymentEvent);
    record(payment);
  };
  const tracker = new PaymentTracker(writer, { journal: store.journal, requestKey: `key:upto-${sequence}`, conversationId: "upto", now: Date.now });
  sequence += 1;
  const outcome = await runPurchase(deps, {
    service: meter.name,
    url,
    method: meter.method,
    ...(call.body ? { body: JSON.stringify(call.body) } : {}),
    intent: `upto-agent-${sequence}`,
    payer: { kind: "agent", account: agent },
    limits: { perPayment: 1_000_000n, perRequest: 1_000_000n, daily },
    maxPayments: 3,
    tracker,
    deadline: Date.now() + 55_000,
  });
  await tracker.recorded();
  return { outcome, events, tracker };
}

const balance = (address: string) =>
  chain.readContract({ address: devnet.usdc as Address, abi: erc20Abi, functionName: "balanceOf", args: [address as Address] });

/** The USDC moved by a transaction from the agent to the merchant. */
async function transferred(txHash: Hex): Promise<bigint> {
  const receipt = await chain.getTransactionReceipt({ hash: txHash });
  const transfers = parseEventLogs({ abi: erc20Abi, eventName: "Transfer", logs: receipt.logs }).filter(
    (log) => log.address.toLowerCase() === devnet.usdc.toLowerCase() && log.args.from.toLowerCase() === agent.address.toLowerCase(),
  );
  expect(transfers).toHaveLength(1);
  expect(transfers[0]!.args.to.toLowerCase()).toBe(devnet.accounts.merchant.address.toLowerCase());
  return transfers[0]!.args.value;
}

const spent = () => store.ledger.spentToday(agent.address);

describe("the agent pays a metered service", () => {
  it("signs the ceiling, and the chain, the ledger and the journal count what the call used", async () => {
    const meter = service("text-meter");
    const ceiling = BigInt(meter.amount!);
    const unitPrice = BigInt(meter.metering!.unitPrice);
    const text = "x".repeat(250); // three started units of 100 characters
    const before = await balance(agent.address);
    const beforeSpent = await spent();
    const { outcome, events } = await buy("text-meter", { body: { text } }, 10n * ceiling);
    expect(outcome).toMatchObject({ status: "delivered" });
    if (outcome.status !== "delivered") return;
    const actual = 3n * unitPrice;
    // The chain: a transfer of the actual amount, below the ceiling, and nothing else moved.
    expect(await transferred(outcome.txHash as Hex)).toBe(actual);
    expect(actual).toBeLessThan(ceiling);
    expect(before - (await balance(agent.address))).toBe(actual);
    // The daily budget counts the actual amount, with nothing left reserved.
    const after = await spent();
    expect(after.settled - beforeSpent.settled).toBe(actual);
    expect(after.reserved).toBe(0n);
    // The stream: quoted at the ceiling, settled at the actual amount beside it, unflagged.
    const quoted = events.find((event) => event.status === "quoted")!;
    const delivered = events.find((event) => event.status === "delivered")!;
    expect(quoted.ceiling).toBe(quoted.amount);
    expect(BigInt(Math.round(Number(quoted.ceiling) * 1e6))).toBe(ceiling);
    expect(BigInt(Math.round(Number(delivered.amount) * 1e6))).toBe(actual);
    expect(delivered.ceiling).toBe(quoted.ceiling);
    expect(delivered.settlementFlag).toBeUndefined();
    // The journal: scheme, ceiling and the actual amount.
    expect(await store.journal.get(outcome.paymentId)).toMatchObject({ status: "delivered", scheme: "upto", ceiling, amount: actual, txHash: outcome.txHash });
    // What went out was a permit for the ceiling, spendable through the upto proxy only.
    const permit = (sentPayments.at(-1)!.payload as { permit2Authorization: { permitted: { amount: string }; spender: string } }).permit2Authorization;
    expect(BigInt(permit.permitted.amount)).toBe(ceiling);
    expect(permit.spender).toBe(UPTO_PROXY);
  });

  it("eight at once against a budget of three ceilings never pass it, and free the difference after settling", async () => {
    const meter = service("row-meter");
    const ceiling = BigInt(meter.amount!);
    const start = await spent();
    // Three ceilings beyond what today has already settled.
    const daily = start.settled + 3n * ceiling;
    const peaks: bigint[] = [];
    const deps = purchaseDeps(async () => {
      const now = await spent();
      peaks.push(now.settled + now.reserved);
    });
    const results = await Promise.all(Array.from({ length: 8 }, () => buy("row-meter", { query: { rows: "2" } }, daily, deps)));
    const delivered = results.filter((result) => result.outcome.status === "delivered");
    const refused = results.filter((result) => result.outcome.status === "failed" && result.outcome.reason === "limit-exceeded");
    expect(delivered.length).toBeGreaterThanOrEqual(3);
    expect(delivered.length + refused.length).toBe(8);
    // Every reservation that went through left settled + reserved within the budget at ceilings.
    expect(peaks.length).toBe(delivered.length);
    for (const peak of peaks) expect(peak).toBeLessThanOrEqual(daily);
    for (const result of refused)
      expect(result.outcome.status === "failed" && result.outcome.message).toMatch(/would go over the daily limit.*nothing was signed/);
    // Settled: each counts 2 rows, the rest of its ceiling is free again.
    const unitPrice = BigInt(meter.metering!.unitPrice);
    const after = await spent();
    expect(after.reserved).toBe(0n);
    expect(after.settled - start.settled).toBe(BigInt(delivered.length) * 2n * unitPrice);
    for (const result of delivered) {
      if (result.outcome.status === "delivered") expect(await transferred(result.outcome.txHash as Hex)).toBe(2n * unitPrice);
    }
    // A later purchase fits in the room the settlements gave back.
    const later = await buy("row-meter", { query: { rows: "2" } }, daily);
    expect(later.outcome).toMatchObject({ status: "delivered" });
  });

  it("a settlement the service never reported is found through Permit2's bitmap and counted at what it moved", async () => {
    const meter = service("text-meter");
    const unitPrice = BigInt(meter.metering!.unitPrice);
    const start = await spent();
    // The facilitator broadcasts the settlement and gives up waiting for it: the service answers
    // without a settlement, and the transfer still mines.
    await devnet.faults.set({ settleTimesOut: true });
    let bought: Bought;
    try {
      bought = await buy("text-meter", { body: { text: "y".repeat(150) } }, start.settled + 10n * BigInt(meter.amount!));
    } finally {
      await devnet.faults.reset();
    }
    const { outcome, events } = bought;
    expect(outcome).toMatchObject({ status: "failed", txHash: expect.stringMatching(/^0x[0-9a-f]{64}$/) });
    if (outcome.status !== "failed" || !outcome.txHash) return;
    expect(await transferred(outcome.txHash as Hex)).toBe(2n * unitPrice);
    expect(events.find((event) => event.status === "confirmed")).toMatchObject({ txHash: outcome.txHash, ceiling: expect.any(String) });
    const after = await spent();
    expect(after.settled - start.settled).toBe(2n * unitPrice);
    expect(after.reserved).toBe(0n);
  });

  it("reports the hostile meter's over-settlement, which is never above the ceiling", async () => {
    const meter = service("overcharging-summary");
    const ceiling = BigInt(meter.amount!);
    const { outcome, events } = await buy("overcharging-summary", { query: { text: "Solar power got cheaper again this year." } }, 10n * ceiling);
    expect(outcome).toMatchObject({ status: "delivered" });
    if (outcome.status !== "delivered") return;
    const moved = await transferred(outcome.txHash as Hex);
    expect(moved).toBeGreaterThan(BigInt(meter.metering!.unitPrice));
    expect(moved).toBeLessThanOrEqual(ceiling);
    const confirmed = events.find((event) => event.status === "confirmed")!;
    expect(confirmed.settlementFlag).toBe("over-settled");
    expect(confirmed.message).toMatch(/^Flagged: overcharging-summary settled [\d.]+ USDC, more than the 0\.001 USDC its own metering says it used/);
    expect(events.find((event) => event.status === "delivered")?.settlementFlag).toBe("over-settled");
    expect(await store.journal.get(outcome.paymentId)).toMatchObject({ settlementFlag: "over-settled", amount: moved, ceiling });

    // Above the ceiling the chain refuses: the facilitator named in our permit, settling our
    // own signed permit for one unit more than we signed, is reverted by the upto proxy.
    const sent = sentPayments.at(-1)!.payload as {
      signature: Hex;
      permit2Authorization: {
        from: Address;
        permitted: { token: Address; amount: string };
        nonce: string;
        deadline: string;
        witness: { to: Address; facilitator: Address; validAfter: string };
      };
    };
    const permit = sent.permit2Authorization;
    expect(permit.witness.facilitator.toLowerCase()).toBe(accounts.facilitator.address.toLowerCase());
    const attempt = chain.simulateContract({
      account: accounts.facilitator.address,
      address: UPTO_PROXY,
      abi: x402UptoPermit2ProxyABI,
      functionName: "settle",
      args: [
        {
          permitted: { token: permit.permitted.token, amount: BigInt(permit.permitted.amount) },
          nonce: BigInt(permit.nonce),
          deadline: BigInt(permit.deadline),
        },
        BigInt(permit.permitted.amount) + 1n,
        permit.from,
        { to: permit.witness.to, facilitator: permit.witness.facilitator, validAfter: BigInt(permit.witness.validAfter) },
        sent.signature,
      ],
    });
    const error = await attempt.then(
      () => undefined,
      (reason: unknown) => reason,
    );
    expect(error).toBeInstanceOf(BaseError);
    const reverted = (error as BaseError).walk((cause) => cause instanceof ContractFunctionRevertedError) as ContractFunctionRevertedError | null;
    expect(reverted?.data?.errorName).toBe("AmountExceedsPermitted");
  });
});
