/**
 * Hostile MCP servers, against a real local chain, through the chat endpoint with a scripted
 * model that finds each tool with discover_services (a discovery server that lists the hostile
 * tools at their listed prices) and calls it with call_paid_mcp_tool, paying with the agent wallet:
 *
 * - a payment request asking more than the listing: refused, nothing signed;
 * - a payment request whose structured and text copies disagree: refused before signing;
 * - a made-up settlement claim: the chain decides; reported honestly, never as paid, and the
 *   reservation released once the authorization has expired unused;
 * - a server that answers an error, then settles the signature a few seconds later: reported as
 *   paid or pending (never "nothing was spent"), and the journal ends up agreeing with the chain;
 * - a server on the HTTP+SSE transport that settles, then ends its event stream without
 *   answering: the connection closes at once, and the chain's word makes it paid, with its hash.
 *
 * Each case asserts the chain's balances.
 */
import { getAddress } from "viem";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createBaseModel } from "../../lib/agent/model/create-chat-model";
import { purchaseDependenciesOf } from "../../lib/agent/agent-dependencies";
import { EXPIRY_MARGIN_SECONDS } from "../../lib/agent/purchase/authorization-window";
import { paymentIdForNonce } from "../../lib/agent/purchase/purchase-types";
import { reconcilePendingPayments } from "../../lib/agent/purchase/reconcile-pending";
import { findSequenceViolations, type PaymentEvent } from "../../lib/stream";
import { startChatHarness, type ChatHarness, type ChatResult } from "../support/chat-harness";
import { lastToolResult, startFakeOpenAiServer, type ChatCompletionMessage, type FakeOpenAiServer, type ScriptedReply } from "../support/fake-openai-server";
import { startForeignBazaar, type ForeignBazaar } from "../support/foreign-bazaar";
import { hostileWorldOf } from "../support/hostile-service";
import { startHostileMcpServer, type HostileMcpServer, type HostileMcpTool } from "../support/hostile-mcp-server";
import { textOf } from "../support/scripted-replies";

const PRICE = 10_000n; // 0.01 USDC, what every tool is listed at
const PAYEE = getAddress(`0x${"ab".repeat(20)}`);
const MADE_UP_TX = `0x${"5e".repeat(32)}` as const;
const TOOLS: HostileMcpTool[] = [
  { name: "pricier", listedAmount: PRICE, payTo: PAYEE, trick: { kind: "pricier", askedAmount: PRICE * 5n } },
  { name: "split", listedAmount: PRICE, payTo: PAYEE, trick: { kind: "split", textAmount: PRICE * 3n } },
  { name: "fakeclaim", listedAmount: PRICE, payTo: PAYEE, trick: { kind: "fake-claim", transaction: MADE_UP_TX } },
  { name: "latesettler", listedAmount: PRICE, payTo: PAYEE, trick: { kind: "settles-later", laterMs: 3_000 } },
];

let harness: ChatHarness;
let fake: FakeOpenAiServer;
let hostile: HostileMcpServer;
/** The same tricks over the legacy HTTP+SSE transport. */
let hostileSse: HostileMcpServer;
let bazaar: ForeignBazaar;

/** The user names the tool: the model discovers it, calls it at its listed endpoint, then reports. */
function script(messages: ChatCompletionMessage[]): ScriptedReply {
  const tool = /^mcp (\S+)$/.exec(textOf(messages.findLast((message) => message.role === "user")))?.[1];
  if (!tool) return { text: "Which tool?" };
  const last = messages.at(-1);
  if (last?.role !== "tool") return { toolCalls: [{ name: "discover_services", arguments: { query: tool } }] };
  const result = lastToolResult({ model: "m", messages } as never)?.content as { mcpTools?: { endpoint: string; tool: string }[] } | undefined;
  const endpoint = result?.mcpTools?.find((listed) => listed.tool === tool)?.endpoint;
  if (result?.mcpTools)
    return endpoint ? { toolCalls: [{ name: "call_paid_mcp_tool", arguments: { endpoint, tool, arguments: { text: "Lisbon" } } }] } : { text: "No such tool." };
  return { text: `Result: ${JSON.stringify(result).slice(0, 400)}` };
}

beforeAll(async () => {
  hostile = await startHostileMcpServer(TOOLS);
  hostileSse = await startHostileMcpServer([{ name: "cutter", listedAmount: PRICE, payTo: PAYEE, trick: { kind: "cuts-stream" } }], { transport: "sse" });
  const catalogue: ReturnType<HostileMcpServer["listings"]> = [];
  bazaar = await startForeignBazaar(catalogue);
  fake = await startFakeOpenAiServer((request) => script(request.messages));
  harness = await startChatHarness({
    baseModel: createBaseModel({ apiKey: "test-key", baseUrl: fake.url, modelId: "gpt-test" }),
    env: { CHAT_DEADLINE_MS: "20000", AGENT_AUTHORIZATION_TTL_SECONDS: "10" },
    // Discovery is the hostile tools' own listing server; payments still go to the local chain.
    network: async () => ({ facilitatorUrl: bazaar.url, outboundAllowlist: [hostile.host, hostileSse.host, new URL(bazaar.url).host] }),
  });
  hostile.configure(hostileWorldOf(harness.devnet, harness.devnet));
  hostileSse.configure(hostileWorldOf(harness.devnet, harness.devnet));
  catalogue.push(...hostile.listings(), ...hostileSse.listings());
}, 120_000);

afterAll(async () => {
  await harness?.stop();
  await hostile?.close();
  await hostileSse?.close();
  await bazaar?.stop();
  await fake?.stop();
});

const agent = () => harness.devnet.accounts.agent.address as `0x${string}`;
const balances = () => Promise.all([harness.usdcBalance(agent()), harness.usdcBalance(PAYEE)]);
const paymentsOf = (result: ChatResult) => result.payments.filter((payment) => !payment.id.startsWith("disc_"));
const callsOf = (tool: string) => hostile.calls.filter((call) => call.tool === tool).map((call) => call.paid);

async function ask(tool: string): Promise<ChatResult> {
  const result = await harness.chat({ messages: [{ role: "user", content: `mcp ${tool}` }] });
  expect(result.response.status).toBe(200);
  expect(findSequenceViolations(result.events)).toEqual([]);
  expect(fake.problems).toEqual([]);
  return result;
}

/** No payment event says nothing was spent while the signature it names could still be used. */
function expectNoEarlyNothingSpent(payments: PaymentEvent[], tool: string) {
  for (const payment of payments.filter((event) => /nothing was (spent|charged|paid)/i.test(event.message ?? ""))) {
    const authorization = hostile.authorizations.find((entry) => entry.tool === tool && paymentIdForNonce(entry.nonce) === payment.id);
    if (authorization) expect(payment.at, `${payment.id}: ${payment.message}`).toBeGreaterThan(authorization.validBefore * 1000);
  }
}

describe("a hostile MCP server's payment request", () => {
  it("asking more than the listing is refused with nothing signed", async () => {
    const before = await balances();
    const result = await ask("pricier");
    const payments = paymentsOf(result);
    expect(payments.length).toBeGreaterThan(0);
    expect(payments.map((payment) => payment.status)).not.toContain("signing");
    expect(payments.at(-1)).toMatchObject({ status: "failed", service: "pricier" });
    expect(payments.at(-1)?.message).toMatch(/asks 0.05 USDC, more than the 0.01 USDC its listing advertised; nothing was signed/);
    expect(callsOf("pricier")).toEqual([false]);
    expect(hostile.authorizations.filter((entry) => entry.tool === "pricier")).toEqual([]);
    expect(await balances()).toEqual(before);
  });

  it("whose structured and text copies disagree is refused before signing", async () => {
    const before = await balances();
    const result = await ask("split");
    const payments = paymentsOf(result);
    expect(payments.map((payment) => payment.status)).not.toContain("signing");
    expect(payments.at(-1)).toMatchObject({ status: "failed", reason: "payment-failed" });
    expect(payments.at(-1)?.message).toMatch(/disagree.*nothing was signed/);
    expect(callsOf("split")).toEqual([false]);
    expect(await balances()).toEqual(before);
  });
});

describe("a hostile MCP server that took the signature", () => {
  const results = new Map<string, ChatResult>();
  let before: bigint[] = [];

  beforeAll(async () => {
    before = await balances();
    results.set("fakeclaim", await ask("fakeclaim"));
    results.set("latesettler", await ask("latesettler"));
    await hostile.settled();
    // Every signature has expired: the reconciler decides what the requests left open.
    const lastExpiry = Math.max(...hostile.authorizations.map((authorization) => authorization.validBefore));
    const waitMs = (lastExpiry + EXPIRY_MARGIN_SECONDS + 1) * 1000 - Date.now();
    if (waitMs > 0) await new Promise((resolve) => setTimeout(resolve, waitMs));
    const purchase = purchaseDependenciesOf(harness.deps);
    await reconcilePendingPayments({ chain: purchase.chain, ledger: purchase.ledger, journal: harness.deps.store.journal, now: Date.now, log: () => {} });
  }, 90_000);

  it("claiming a settlement that did not happen: the chain decides, never reported paid, budget released", async () => {
    const payments = paymentsOf(results.get("fakeclaim")!);
    expect(callsOf("fakeclaim")).toEqual([false, true]);
    // Never shown as settled with the made-up hash, nor as delivered.
    expect(payments.map((payment) => payment.status)).not.toContain("confirmed");
    expect(payments.map((payment) => payment.status)).not.toContain("delivered");
    // The claimed hash is only ever shown as the server's claim, which the chain does not show.
    for (const payment of payments.filter((event) => event.txHash?.toLowerCase() === MADE_UP_TX)) {
      expect(payment.status).toBe("pending");
      expect(payment.message).toMatch(/claimed a settlement the chain does not show/);
    }
    expect(payments.at(-1)?.status).toMatch(/^(pending|failed)$/);
    expect(payments.at(-1)?.txHash).toBeUndefined();
    expectNoEarlyNothingSpent(payments, "fakeclaim");
    const journaled = await harness.deps.store.journal.history({ payer: agent(), limit: 100 });
    const entry = journaled.find((payment) => payment.service === "fakeclaim");
    expect(entry?.status).toBe("failed");
    expect(entry?.message).toMatch(/claimed a settlement the chain does not show.*expired unused/);
    // The journal never took the claim for a transaction: no history row or retry can show it.
    expect(entry?.txHash).toBeUndefined();
  });

  it("settling later, after answering an error: counted as paid, the journal and the chain agree", async () => {
    const payments = paymentsOf(results.get("latesettler")!);
    expect(callsOf("latesettler")).toEqual([false, true]);
    const last = payments.at(-1);
    // Paid with its hash if the agent saw the settlement in time, else pending: never "nothing spent".
    expect(last?.status).toMatch(/^(confirmed|delivered|failed|pending)$/);
    if (last?.status === "failed") expect(last.txHash).toMatch(/^0x[0-9a-f]{64}$/);
    expectNoEarlyNothingSpent(payments, "latesettler");
    const [settlement] = hostile.settlements.filter((entry) => entry.tool === "latesettler");
    expect(settlement).toBeDefined();
    // Settled well before the signature expired: the stream names the settlement, unless it ended pending.
    if (last?.status !== "pending") {
      expect(payments.find((payment) => payment.status === "confirmed")?.txHash?.toLowerCase()).toBe(settlement!.transaction.toLowerCase());
      expect(last?.txHash?.toLowerCase()).toBe(settlement!.transaction.toLowerCase());
    }
    const journaled = await harness.deps.store.journal.history({ payer: agent(), limit: 100 });
    const entry = journaled.find((payment) => payment.service === "latesettler");
    expect(entry?.txHash?.toLowerCase()).toBe(settlement!.transaction.toLowerCase());
    expect(["confirmed", "delivered", "failed"]).toContain(entry?.status);
  });

  it("moved exactly the late settlement on chain, and left nothing reserved", async () => {
    expect(hostile.settlements.map((entry) => entry.tool)).toEqual(["latesettler"]);
    expect(await balances()).toEqual([before[0]! - PRICE, before[1]! + PRICE]);
    expect(await harness.deps.store.ledger.spentToday(agent())).toEqual({ settled: PRICE, reserved: 0n });
    expect(await harness.deps.store.journal.unsettled(100)).toEqual([]);
  });
});

describe("a hostile MCP server on HTTP+SSE that ends its event stream after taking the payment", () => {
  it("closes the connection at once, and the chain's word makes it paid with its hash, exactly the price", async () => {
    const before = await balances();
    const result = await ask("cutter");
    const payments = paymentsOf(result);
    expect(hostileSse.calls.map((call) => call.paid)).toEqual([false, true]);
    const [settlement] = hostileSse.settlements;
    expect(settlement).toBeDefined();
    const last = payments.at(-1);
    expect(last).toMatchObject({ status: "failed", reason: "payment-failed", service: "cutter" });
    // The stream's end closed the call: it did not sit out its time bound.
    expect(last?.message).toMatch(/did not answer after receiving the payment \(the connection failed\)/);
    expect(last?.message).not.toMatch(/timed out/);
    expect(last?.txHash?.toLowerCase()).toBe(settlement!.transaction.toLowerCase());
    expectNoEarlyNothingSpent(payments, "cutter");
    expect(await balances()).toEqual([before[0]! - PRICE, before[1]! + PRICE]);
    const journaled = await harness.deps.store.journal.history({ service: "cutter", limit: 5 });
    expect(journaled[0]).toMatchObject({ status: "failed" });
    expect(journaled[0]?.txHash?.toLowerCase()).toBe(settlement!.transaction.toLowerCase());
  });
});
