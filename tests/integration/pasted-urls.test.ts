/**
 * A URL pasted into a chat is the call the user asked for (the offline demo model, through the
 * real chat handler on the local world): each case of the finding pays exactly the pasted path
 * and query, never a value read from the words around it. Judged three ways: the request the
 * service was sent (the app's service fetch, watched), the payment's events, and the chain (the
 * one USDC Transfer of the settlement, agent to merchant, exactly the price, or for a metered
 * service the amount its use settles). An unlisted URL, from a caller this deployment does not
 * let call unlisted URLs: nothing is sent, nothing paid, and the answer says why.
 */
import { randomUUID } from "node:crypto";
import { createPublicClient, erc20Abi, getAddress, http, parseEventLogs, parseUnits, type Hex } from "viem";
import { privateKeyToAccount, generatePrivateKey } from "viem/accounts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Devnet } from "../../devnet";
import { startChatHarness, userMessage, type ChatHarness } from "../support/chat-harness";

type Sent = { url: string; method: string; body?: string; paid: boolean };

let harness: ChatHarness;
let token: string;
const sent: Sent[] = [];

beforeAll(async () => {
  // Named callers only: an API key allowed the agent wallet pays; an anonymous caller pays from
  // its own wallet and may not have unlisted URLs called.
  harness = await startChatHarness({ env: { AGENT_WALLET_ACCESS: "authenticated" } });
  const budget = { perPayment: 1_000_000n, perRequest: 1_000_000n, daily: 10_000_000n };
  ({ token } = await harness.deps.store.apiKeys.create({ name: "pasted-urls", budget, agentWallet: true }));
  const fetch = harness.deps.fetch;
  harness.deps.fetch = async (input, init) => {
    const headers = new Headers(init?.headers);
    sent.push({
      url: String(input),
      method: init?.method ?? "GET",
      ...(typeof init?.body === "string" ? { body: init.body } : {}),
      paid: headers.has("payment-signature") || headers.has("x-payment"),
    });
    return fetch(input, init);
  };
}, 120_000);

afterAll(async () => {
  await harness?.stop();
});

function service(name: string): Devnet["services"][number] {
  const found = harness.devnet.services.find((candidate) => candidate.name === name);
  if (!found) throw new Error(`the local world has no ${name}`);
  return found;
}

const at = (name: string, pathAndQuery: string) => `${new URL(service(name).url).origin}${pathAndQuery}`;
const unitPrice = (name: string) => BigInt(service(name).metering!.unitPrice);

/** The USDC Transfers of a settlement transaction, as [from, to, value]. */
async function transfersOf(txHash: Hex): Promise<[string, string, bigint][]> {
  const chain = createPublicClient({ transport: http(harness.devnet.rpcUrl) });
  const receipt = await chain.getTransactionReceipt({ hash: txHash });
  return parseEventLogs({ abi: erc20Abi, eventName: "Transfer", logs: receipt.logs })
    .filter((log) => getAddress(log.address) === getAddress(harness.devnet.usdc))
    .map((log) => [getAddress(log.args.from), getAddress(log.args.to), log.args.value]);
}

type Case = { said: (url: string) => string; url: () => string; method: string; body?: unknown; amount: () => bigint };

const SUMMARY_TEXT = "Solar%20power%20got%20cheaper%20again";
const ANALYZE_TEXT = "Wind farms move offshore, and storage fills the gaps between the windy days.";

const CASES: Record<string, Case> = {
  "Call URL": {
    said: (url) => `Call ${url}`,
    url: () => at("weather", "/weather?city=Lisbon"),
    method: "GET",
    amount: () => parseUnits(service("weather").price, 6),
  },
  "Get URL for me": {
    said: (url) => `Get ${url} for me`,
    url: () => at("weather", "/weather?city=Porto"),
    method: "GET",
    amount: () => parseUnits(service("weather").price, 6),
  },
  "Please fetch URL": {
    said: (url) => `Please fetch ${url}`,
    url: () => at("weather", "/weather?city=Oslo"),
    method: "GET",
    amount: () => parseUnits(service("weather").price, 6),
  },
  "another city in the words": {
    said: (url) => `What's the weather in Paris? Call ${url}`,
    url: () => at("weather", "/weather?city=Lisbon"),
    method: "GET",
    amount: () => parseUnits(service("weather").price, 6),
  },
  "a path parameter": {
    said: (url) => url,
    url: () => at("stock-quote", "/stocks/NVDA/quote"),
    method: "GET",
    amount: () => parseUnits(service("stock-quote").price, 6),
  },
  "a metered query": {
    said: (url) => `Call ${url}`,
    url: () => at("row-meter", "/metered/data/rows?rows=12&dataset=sales"),
    method: "GET",
    amount: () => 12n * unitPrice("row-meter"),
  },
  "a metered service that settles its ceiling": {
    said: (url) => `Call ${url}`,
    url: () => at("overcharging-summary", `/metered/text/summary?text=${SUMMARY_TEXT}`),
    method: "GET",
    amount: () => BigInt(service("overcharging-summary").amount!),
  },
  "POST with the JSON body": {
    said: (url) => `POST ${url} with the JSON body ${JSON.stringify({ text: ANALYZE_TEXT })}`,
    url: () => at("text-meter", "/metered/text/analyze"),
    method: "POST",
    body: { text: ANALYZE_TEXT },
    amount: () => BigInt(Math.ceil(ANALYZE_TEXT.length / 100)) * unitPrice("text-meter"),
  },
};

describe("a pasted URL pays exactly the pasted path and query", () => {
  it.each(Object.keys(CASES))("%s", { timeout: 60_000 }, async (name) => {
    const item = CASES[name]!;
    const url = item.url();
    const agent = getAddress(harness.devnet.accounts.agent.address);
    const merchant = getAddress(harness.devnet.accounts.merchant.address);
    const from = sent.length;

    const result = await harness.chat(userMessage(item.said(url)), { headers: { authorization: `Bearer ${token}`, "idempotency-key": randomUUID() } });
    expect(result.response.status).toBe(200);
    expect(result.errors).toEqual([]);
    expect(result.finish, result.text).toMatchObject({ finishReason: "payment-complete" });

    // The service was sent the pasted URL, and only it: asked, then paid, with the body the user wrote.
    const toService = sent.slice(from);
    expect(toService.map((request) => request.url)).toEqual(toService.map(() => url));
    const paid = toService.filter((request) => request.paid);
    expect(paid).toHaveLength(1);
    expect(paid[0]).toMatchObject({ method: item.method });
    if (item.body !== undefined) expect(JSON.parse(paid[0]!.body ?? "null")).toEqual(item.body);

    // The payment names that URL; the answer says it called the URL the user gave.
    expect(result.finish?.payments).toHaveLength(1);
    expect(result.finish?.payments[0]).toMatchObject({ status: "delivered", resource: url });
    expect(result.text).toContain(`You gave the URL ${url}, so I called exactly that (${item.method}`);

    // The chain: one Transfer, agent to merchant, exactly the amount.
    expect(await transfersOf(result.finish!.txHash as Hex)).toEqual([[agent, merchant, item.amount()]]);
  });
});

describe("a pasted URL no listing names, from a caller who may not call unlisted URLs", () => {
  it("is not called, nothing is paid, and the answer says why", { timeout: 60_000 }, async () => {
    const url = at("weather", "/not-listed/weather?city=Lisbon");
    const wallet = privateKeyToAccount(generatePrivateKey()).address;
    const agent = getAddress(harness.devnet.accounts.agent.address);
    const before = await harness.usdcBalance(agent);
    const from = sent.length;

    const result = await harness.chat({ ...userMessage(`Call ${url}`), walletAddress: wallet }, { headers: { "idempotency-key": randomUUID() } });
    expect(result.response.status).toBe(200);
    expect(result.errors).toEqual([]);
    expect(sent.slice(from)).toEqual([]);
    expect(result.payments.filter((payment) => payment.id.startsWith("pay_"))).toEqual([]);
    expect(result.finish?.txHash ?? null).toBeNull();
    expect(result.text).toContain(`You gave the URL ${url}`);
    expect(result.text).toContain("No discovery listing names it");
    expect(result.text).toMatch(/Nothing was paid\. Not called: this deployment calls URLs that discovery did not list only for callers it knows/);
    expect(await harness.usdcBalance(agent)).toBe(before);
  });
});
