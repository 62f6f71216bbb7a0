/**
 * Sellers that take the signature and then play a trick, against a real local chain, for the
 * agent wallet and for the user's wallet. Each trick answers the paid request badly (402, 500,
 * a hang, a reset socket, garbage, a redirect, a made-up settlement) and settles the signature
 * itself never, at once, 1.5 s later, after the user-wallet path stopped watching, or twice.
 *
 * Whatever the trick, across three requests under a daily limit of one price:
 * - the wallet never moves more than the limit allows;
 * - the stream never says "nothing was spent" while the signature could still be used;
 * - every settlement the chain shows is reported in the stream with its hash, unless it landed
 *   after a user's payment was handed to the reconciler `pending` (then the journal has it);
 * - once the reconciler has run after every signature expired, the ledger equals the chain
 *   and nothing stays reserved.
 *
 * Every scenario has its own wallet and store, so they run at once.
 */
import type { LanguageModelV4StreamPart } from "@ai-sdk/provider";
import { MockLanguageModelV4, convertArrayToReadableStream } from "ai/test";
import { createWalletClient, erc20Abi, getAddress, http, publicActions } from "viem";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { purchaseDependenciesOf } from "../../lib/agent/agent-dependencies";
import { EXPIRY_MARGIN_SECONDS, USER_SETTLEMENT_WATCH_MS } from "../../lib/agent/purchase/authorization-window";
import { paymentIdForNonce } from "../../lib/agent/purchase/purchase-types";
import { reconcilePendingPayments } from "../../lib/agent/purchase/reconcile-pending";
import { createAppDependencies } from "../../lib/app/create-app-dependencies";
import { type AppDependencies } from "../../lib/doors/app-dependencies";
import { handleChatRequest } from "../../lib/chat/handle-chat-request";
import { createMemoryStore } from "../../lib/store/create-memory-store";
import { decodeAll, findSequenceViolations, type ApprovalRequest, type PaymentEvent, type StreamEvent } from "../../lib/stream";
import { encodePaymentSignatureHeader } from "../../lib/x402/payment-signature-header";
import { walletTypedDataOf } from "../../lib/x402/approval-typed-data";
import { startChatHarness, type ChatHarness } from "../support/chat-harness";
import { exactUsdcOption, hostileWorldOf, startHostileService, type AfterPaymentTrick, type HostileService } from "../support/hostile-service";

const PRICE = 15_000n; // 0.015 USDC
const LIMITS = { perPayment: "0.015", perRequest: "0.015", daily: "0.015" };
const REQUESTS = 3;
const HOSTILE_PAYEE = getAddress(`0x${"be".repeat(20)}`);

const TRICKS: Record<string, AfterPaymentTrick> = {
  "answers 402 and never settles": { answer: "402", settle: "never" },
  "answers 402 and settles 1.5 s later": { answer: "402", settle: "later" },
  "settles at once but answers 402": { answer: "402", settle: "now" },
  "answers 500 and settles later": { answer: "500", settle: "later" },
  hangs: { answer: "hang", settle: "never" },
  "resets the socket and settles later": { answer: "reset", settle: "later" },
  // Past the user-wallet path's watch: that payment is handed over `pending`, the journal reports it.
  "resets the socket and settles after the watch": { answer: "reset", settle: "later", laterMs: USER_SETTLEMENT_WATCH_MS + 2_000 },
  "answers garbage": { answer: "garbage", settle: "never" },
  "redirects elsewhere and settles later": { answer: "redirect", settle: "later" },
  "claims a settlement that did not happen": { answer: "fake-claim", settle: "never" },
  "settles twice": { answer: "honest", settle: "twice" },
};
type Payer = "agent" | "user";

/** One model for every scenario: it calls the URL the user named, then says it is done. */
const usage = { inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 }, outputTokens: { total: 1, text: 1, reasoning: 0 } };
let callCounter = 0;
const model = new MockLanguageModelV4({
  doStream: async ({ prompt }) => {
    const answered = prompt.some((message) => message.role === "tool");
    const userText = prompt
      .flatMap((message) => (message.role === "user" ? message.content.map((part) => (part.type === "text" ? part.text : "")) : []))
      .join(" ");
    const url = userText.match(/https?:\/\/\S+/)?.[0];
    const parts: LanguageModelV4StreamPart[] =
      answered || !url
        ? [
            { type: "text-start", id: "t" },
            { type: "text-delta", id: "t", delta: "Done." },
            { type: "text-end", id: "t" },
            { type: "finish", finishReason: { unified: "stop", raw: undefined }, usage },
          ]
        : [
            { type: "tool-call", toolCallId: `trick-${(callCounter += 1)}`, toolName: "call_paid_service", input: JSON.stringify({ url, method: "GET" }) },
            { type: "finish", finishReason: { unified: "tool-calls", raw: undefined }, usage },
          ];
    return { stream: convertArrayToReadableStream(parts) };
  },
});

let harness: ChatHarness;
let hostile: HostileService;

function pathOf(trick: string, payer: Payer): string {
  return `/${payer}-${trick.replace(/[^a-z0-9]+/gi, "-")}`;
}

beforeAll(async () => {
  const routes = Object.fromEntries(
    Object.entries(TRICKS).flatMap(([name, trick]) =>
      (["agent", "user"] as const).map((payer) => [
        pathOf(name, payer),
        {
          accepts: (world: Parameters<typeof exactUsdcOption>[0]) => [exactUsdcOption(world, { amount: PRICE.toString(), payTo: HOSTILE_PAYEE })],
          afterPayment: trick,
        },
      ]),
    ),
  );
  hostile = await startHostileService(routes);
  harness = await startChatHarness({
    baseModel: { model, modelId: "scripted-trick", isDemo: false },
    env: {
      OUTBOUND_ALLOWLIST: `127.0.0.1:${hostile.port}`,
      CHAT_DEADLINE_MS: "20000",
      AGENT_AUTHORIZATION_TTL_SECONDS: "10",
      APPROVAL_TTL_SECONDS: "30",
    },
  });
  hostile.configure(hostileWorldOf(harness.devnet, harness.devnet));
}, 60_000);

afterAll(async () => {
  await hostile?.close();
  await harness?.stop();
});

/** A fresh wallet holding 1 USDC, funded by the local world's agent account. */
async function fundedWallet(funder: ReturnType<typeof walletClient>) {
  const key = generatePrivateKey();
  const account = privateKeyToAccount(key);
  const hash = await funder.writeContract({
    address: harness.devnet.usdc as `0x${string}`,
    abi: erc20Abi,
    functionName: "transfer",
    args: [account.address, 1_000_000n],
    chain: null,
  });
  await funder.waitForTransactionReceipt({ hash });
  return { key, address: account.address };
}

function walletClient() {
  return createWalletClient({
    account: privateKeyToAccount(harness.devnet.accounts.agent.privateKey as `0x${string}`),
    transport: http(harness.devnet.rpcUrl),
  }).extend(publicActions);
}

async function chat(deps: AppDependencies, body: unknown, headers: Record<string, string> = {}): Promise<StreamEvent[]> {
  const response = await handleChatRequest(
    new Request("http://127.0.0.1/api/chat", { method: "POST", headers: { "content-type": "application/json", ...headers }, body: JSON.stringify(body) }),
    () => deps,
  );
  expect(response.status).toBe(200);
  const events = decodeAll(await response.text()).flatMap((item) => (item.kind === "event" ? [item.event] : [])) as StreamEvent[];
  expect(findSequenceViolations(events)).toEqual([]);
  return events;
}

type Scenario = {
  trick: string;
  payer: Payer;
  path: string;
  wallet: { key: `0x${string}`; address: `0x${string}` };
  deps: AppDependencies;
  before: bigint;
  events: StreamEvent[];
};

async function play(scenario: Scenario): Promise<void> {
  const url = hostile.url(scenario.path);
  const question = { messages: [{ role: "user", content: `Get the data at ${url}` }], spendingLimits: LIMITS };
  for (let request = 0; request < REQUESTS; request += 1) {
    if (scenario.payer === "agent") {
      scenario.events.push(...(await chat(scenario.deps, question)));
      continue;
    }
    const body = { ...question, walletAddress: scenario.wallet.address };
    const first = await chat(scenario.deps, body);
    scenario.events.push(...first);
    const approval = first.flatMap((event) => (event.type === "payment" && event.payment.approval ? [event.payment.approval] : [])).at(-1) as
      ApprovalRequest | undefined;
    if (!approval) continue;
    const signature = await privateKeyToAccount(scenario.wallet.key).signTypedData(walletTypedDataOf(approval));
    scenario.events.push(...(await chat(scenario.deps, body, { "PAYMENT-SIGNATURE": encodePaymentSignatureHeader(approval, signature) })));
  }
}

const scenarios: Scenario[] = [];

describe("a seller that takes the signature and plays a trick", () => {
  beforeAll(async () => {
    const funder = walletClient();
    for (const trick of Object.keys(TRICKS)) {
      for (const payer of ["agent", "user"] as const) {
        const wallet = await fundedWallet(funder);
        const network = { ...harness.deps.network, agentPrivateKey: payer === "agent" ? wallet.key : harness.deps.network.agentPrivateKey };
        const deps = createAppDependencies(harness.env, { network, store: createMemoryStore(), baseModel: harness.deps.baseModel });
        scenarios.push({ trick, payer, path: pathOf(trick, payer), wallet, deps, before: await harness.usdcBalance(wallet.address), events: [] });
      }
    }
    await Promise.all(scenarios.map(play));
    await hostile.settled();
    // Every signature has expired: the reconciler can decide whatever the requests left open.
    const lastExpiry = Math.max(...hostile.authorizations.map((authorization) => authorization.validBefore));
    const waitMs = (lastExpiry + EXPIRY_MARGIN_SECONDS + 1) * 1000 - Date.now();
    if (waitMs > 0) await new Promise((resolve) => setTimeout(resolve, waitMs));
    for (const scenario of scenarios) {
      const purchase = purchaseDependenciesOf(scenario.deps);
      await reconcilePendingPayments({ chain: purchase.chain, ledger: purchase.ledger, journal: scenario.deps.store.journal, now: Date.now, log: () => {} });
    }
  }, 150_000);

  const cases = Object.keys(TRICKS).flatMap((trick) => (["agent", "user"] as const).map((payer) => [trick, payer] as const));

  it.each(cases)("%s (%s wallet): never more than the limit, never 'nothing was spent' while usable, every settlement reported", async (trick, payer) => {
    const scenario = scenarios.find((entry) => entry.trick === trick && entry.payer === payer)!;
    const payments = scenario.events.flatMap((event) => (event.type === "payment" ? [event.payment] : [])) as PaymentEvent[];

    // The service received at least one signature, or the scenario tested nothing.
    const received = hostile.authorizations.filter((authorization) => authorization.path === scenario.path);
    expect(received.length).toBeGreaterThan(0);

    // 1. The wallet moved at most the daily limit.
    const moved = scenario.before - (await harness.usdcBalance(scenario.wallet.address));
    expect(moved).toBeLessThanOrEqual(PRICE);

    // 2. "Nothing was spent" only once the signature could no longer be used.
    for (const payment of payments.filter((event) => /nothing was spent/i.test(event.message ?? ""))) {
      const authorization = received.find((entry) => paymentIdForNonce(entry.nonce) === payment.id);
      if (authorization) expect(payment.at, `${payment.id}: ${payment.message}`).toBeGreaterThan(authorization.validBefore * 1000);
    }

    // 3. Every settlement on chain is reported with its hash.
    const reported = new Set(payments.flatMap((event) => (event.txHash ? [event.txHash.toLowerCase()] : [])));
    const settled = hostile.settlements.filter((settlement) => settlement.path === scenario.path);
    expect(settled.reduce((sum, settlement) => sum + BigInt(settlement.amount), 0n)).toBe(moved);
    for (const settlement of settled) {
      if (reported.has(settlement.transaction.toLowerCase())) continue;
      // A user's signature outlives the request: the chain is watched a while, then the payment
      // is handed to the reconciler still `pending`. A settlement that lands after that
      // hand-over is the journal's to report (4, below); any earlier one must be in the stream.
      const events = payments.filter((event) => settlement.nonce !== undefined && event.id === paymentIdForNonce(settlement.nonce));
      const last = events.at(-1);
      expect(payer, `${settlement.transaction} settled and never reported`).toBe("user");
      expect(last?.status, `${settlement.transaction}: the stream's last word on it`).toBe("pending");
      expect(last!.at, `${settlement.transaction} landed before the hand-over and was not reported`).toBeLessThan(settlement.at);
    }

    // 4. After reconciliation the ledger equals the chain, with nothing left reserved.
    const spending = await scenario.deps.store.ledger.spentToday(scenario.wallet.address);
    expect(spending).toEqual({ settled: moved, reserved: 0n });
    // The journal names every payment with its final outcome, and hashes agree with the chain.
    expect(await scenario.deps.store.journal.unsettled(100)).toEqual([]);
    const journaled = await scenario.deps.store.journal.history({ payer: scenario.wallet.address, limit: 100 });
    const journaledHashes = journaled.flatMap((payment) =>
      payment.txHash && (payment.status === "confirmed" || payment.status === "delivered" || payment.status === "failed") ? [payment.txHash.toLowerCase()] : [],
    );
    for (const settlement of settled) expect(journaledHashes).toContain(settlement.transaction.toLowerCase());
  });
});
