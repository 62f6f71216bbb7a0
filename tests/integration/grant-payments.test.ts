/**
 * Paying under a grant on the local world: the user signs one Permit2 allowance, and chats that
 * prove the wallet (the grant's token) pay from it with no approval round trip. Exactly what
 * was settled leaves the user's wallet; the database refuses the payment past the grant before
 * the chain would, and the chain refuses a pull past it when the database is bypassed. A caller
 * who only names the wallet gets the approval path; another wallet's token is refused; after a
 * revoke nothing moves.
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { createPublicClient, createWalletClient, http, parseAbi, parseUnits, type Hex } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { grantsDependenciesOf } from "../../lib/app/grants-dependencies";
import { PERMIT2 } from "../../lib/grants/grant-permit";
import { handleRevokeGrant, type GrantsDependencies } from "../../lib/grants/handle-grants-request";
import { handleMcpRequest } from "../../lib/mcp/handle-mcp-request";
import { startChatHarness, type ChatHarness, type ChatResult } from "../support/chat-harness";
import { grantRequest, signGrant } from "../support/grant-signing";

const allowanceAbi = parseAbi([
  "function allowance(address owner, address token, address spender) view returns (uint160 amount, uint48 expiration, uint48 nonce)",
]);

let harness: ChatHarness;
let grantsDeps: GrantsDependencies;

beforeAll(async () => {
  harness = await startChatHarness();
  grantsDeps = grantsDependenciesOf(harness.deps);
}, 120_000);

afterAll(async () => {
  await harness?.stop();
});

const user = () => privateKeyToAccount(harness.devnet.accounts.user.privateKey as Hex);
const relayer = () => privateKeyToAccount(harness.devnet.accounts.agent.privateKey as Hex).address;
const service = (name: string) => harness.devnet.services.find((candidate) => candidate.name === name)!;
const priceOf = (name: string) => parseUnits(service(name).price, 6);
const chain = () => createPublicClient({ transport: http(harness.devnet.rpcUrl), cacheTime: 0 });
const allowance = async (owner: `0x${string}`) =>
  (
    await chain().readContract({
      address: PERMIT2,
      abi: allowanceAbi,
      functionName: "allowance",
      args: [owner, harness.devnet.usdc as `0x${string}`, relayer()],
    })
  )[0];

const request = grantRequest;

/** One signature: the grant's typed data, signed by the user's key as a wallet would, and submitted. */
const grantOf = (amount: bigint) => signGrant(grantsDeps, user(), amount);

const LIMITS = { perPayment: "1", perRequest: "1", daily: "5" };
function ask(url: string, headers: Record<string, string>, walletAddress: `0x${string}` = user().address): Promise<ChatResult> {
  return harness.chat({ messages: [{ role: "user", content: `Call ${url}` }], walletAddress, spendingLimits: LIMITS }, { headers });
}

const statuses = (result: ChatResult) => result.payments.map((payment) => payment.status);

describe("payments under a grant", () => {
  it(
    "exact and metered calls pay with no approval; the next is refused by the database, a pull past the grant by the chain; revoke returns the float",
    { timeout: 120_000 },
    async () => {
      const at = (name: string, pathAndQuery: string) => `${new URL(service(name).url).origin}${pathAndQuery}`;
      const weather = priceOf("weather");
      const ceiling = priceOf("row-meter");
      const rows = 12n * BigInt(service("row-meter").metering!.unitPrice);
      const grant = await grantOf(weather + ceiling + weather);
      const auth = { authorization: `Bearer ${grant.token}` };
      const wallet = user().address;
      const before = { balance: await harness.usdcBalance(wallet), allowance: await allowance(wallet) };
      expect(before.allowance).toBe(weather + ceiling + weather);

      // 1. exact: pulls its price. 2. upto: pulls its ceiling, settles 12 rows, the rest is float.
      // 3. exact: paid from that float, nothing pulled.
      const calls = [
        { url: at("weather", "/weather?city=Lisbon"), source: /Its 0\.01 USDC came from grant [0-9a-f]{16} \(transaction 0x[0-9a-f]{64}\)/ },
        { url: at("row-meter", "/metered/data/rows?rows=12&dataset=sales"), source: /came from grant [0-9a-f]{16} \(transaction 0x[0-9a-f]{64}\)/ },
        { url: at("weather", "/weather?city=Porto"), source: /left on the payer account before \(float\)/ },
      ];
      let last: ChatResult | undefined;
      for (const call of calls) {
        const result = await ask(call.url, auth);
        last = result;
        expect(result.response.status).toBe(200);
        expect(statuses(result)).not.toContain("awaiting-approval");
        expect(result.finish?.finishReason, JSON.stringify(result.payments.at(-1))).toBe("payment-complete");
        expect(statuses(result)).toContain("delivered");
        expect(result.payments.some((payment) => call.source.test(payment.message ?? ""))).toBe(true);
      }
      const pulled = weather + ceiling;
      const settled = weather + rows + weather;
      // `d:` says what is left of the grant: its amount less what settled.
      expect(last?.finish?.grant).toEqual({ id: grant.id, remaining: String(Number(weather + ceiling + weather - settled) / 1e6) });
      expect(await harness.usdcBalance(wallet)).toBe(before.balance - pulled);
      expect(await allowance(wallet)).toBe(before.allowance - pulled);

      // The grant has (weather + ceiling + weather) - settled left in the ledger: less than a ceiling.
      const block = await chain().getBlockNumber();
      const fourth = await ask(at("row-meter", "/metered/data/rows?rows=3&dataset=sales"), auth);
      expect(fourth.response.status).toBe(200);
      const refusal = fourth.payments.find((payment) => payment.status === "failed");
      expect(refusal?.reason).toBe("limit-exceeded");
      expect(refusal?.message).toMatch(/would go over your grant of [\d.]+ USDC/);
      expect(await chain().getBlockNumber()).toBe(block);

      // With the database bypassed, the chain refuses: the float and the allowance left cover less than a ceiling.
      const record = await harness.deps.store.grants.get(grant.id);
      expect(await harness.deps.grantPayer!(record!).funding.fund(ceiling)).toMatchObject({
        ok: false,
        message: expect.stringMatching(/Permit2 refused to move/),
      });
      expect(await harness.usdcBalance(wallet)).toBe(before.balance - pulled);

      // The journal holds the grant's payments under its payer account, which the grant names,
      // each with the pull (or the float) that paid it.
      const payerAccount = harness.deps.grantAccountOf!(wallet);
      const journal = await harness.deps.store.journal.history({ payer: payerAccount, limit: 50 });
      expect(journal.filter((entry) => entry.status === "delivered").map((entry) => entry.resource)).toEqual(calls.map((call) => call.url).reverse());

      // Revoked: the float goes back, so the wallet is down by exactly what settled.
      const revoked = await handleRevokeGrant(request("DELETE", `/api/grants/${grant.id}`, undefined, auth), grant.id, () => grantsDeps);
      expect(revoked.status).toBe(200);
      expect(await revoked.json()).toMatchObject({ floatReturned: String(Number(pulled - settled) / 1e6) });
      expect(await harness.usdcBalance(wallet)).toBe(before.balance - settled);
      expect(await allowance(wallet)).toBe(before.allowance - pulled);
    },
  );

  it(
    "a caller who only names the wallet is asked for approval, another wallet's token is refused, and a revoked grant pays nothing",
    { timeout: 120_000 },
    async () => {
      const url = `${service("weather").url}?city=Madrid`;
      const grant = await grantOf(priceOf("weather") * 2n);
      const wallet = user().address;
      const balance = await harness.usdcBalance(wallet);
      const left = await allowance(wallet);

      const named = await ask(url, {});
      expect(statuses(named)).toContain("awaiting-approval");
      expect(statuses(named)).not.toContain("delivered");

      const stranger = privateKeyToAccount(harness.devnet.accounts.unfunded.privateKey as Hex).address;
      const other = await ask(url, { authorization: `Bearer ${grant.token}` }, stranger);
      expect(other.response.status).toBe(403);
      expect(((await other.response.json()) as { code: string }).code).toBe("forbidden:grant_other_wallet");

      const revoked = await handleRevokeGrant(
        request("DELETE", `/api/grants/${grant.id}`, undefined, { authorization: `Bearer ${grant.token}` }),
        grant.id,
        () => grantsDeps,
      );
      expect(revoked.status).toBe(200);
      const after = await ask(url, { authorization: `Bearer ${grant.token}` });
      expect(after.response.status).toBe(403);
      expect(((await after.response.json()) as { code: string }).code).toBe("forbidden:grant_ended");

      const forged = await ask(url, { authorization: "Bearer x402g_0123456789abcdef_notarealsecret" });
      expect(forged.response.status).toBe(401);
      expect(await harness.usdcBalance(wallet)).toBe(balance);
      expect(await allowance(wallet)).toBe(left);
    },
  );

  it("after Permit2.lockdown from the wallet, the next payment is refused on chain and said in words; nothing moves", { timeout: 120_000 }, async () => {
    const grant = await grantOf(priceOf("weather") * 2n);
    const wallet = user().address;
    const owner = createWalletClient({ account: user(), transport: http(harness.devnet.rpcUrl) });
    const lockdownAbi = parseAbi(["function lockdown((address token, address spender)[] approvals)"]);
    const hash = await owner.writeContract({
      address: PERMIT2,
      abi: lockdownAbi,
      functionName: "lockdown",
      args: [[{ token: harness.devnet.usdc as `0x${string}`, spender: relayer() }]],
      chain: null,
    });
    await chain().waitForTransactionReceipt({ hash });
    expect(await allowance(wallet)).toBe(0n);
    const balance = await harness.usdcBalance(wallet);

    const result = await ask(`${service("weather").url}?city=Rome`, { authorization: `Bearer ${grant.token}` });
    const failed = result.payments.find((payment) => payment.status === "failed");
    expect(failed?.message).toMatch(/Permit2 refused to move 0\.01 USDC from your wallet: .*locked down from your wallet\); nothing was signed/);
    expect(statuses(result)).not.toContain("verifying");
    expect(await harness.usdcBalance(wallet)).toBe(balance);
  });

  it("MCP: buy with the grant's token pays from the grant's wallet with no approval; without it the agent wallet pays", { timeout: 120_000 }, async () => {
    const url = `${service("weather").url}?city=Vienna`;
    const grant = await grantOf(priceOf("weather"));
    const wallet = user().address;
    const agent = harness.devnet.accounts.agent.address as `0x${string}`;
    const before = { user: await harness.usdcBalance(wallet), agent: await harness.usdcBalance(agent) };

    const bought = await mcpBuy(url, { authorization: `Bearer ${grant.token}` });
    expect(bought).toMatchObject({ status: "paid", amount: "0.01" });
    expect(await harness.usdcBalance(wallet)).toBe(before.user - priceOf("weather"));
    expect(await harness.usdcBalance(agent)).toBe(before.agent);

    // The grant is spent: the next buy under it is refused by the ledger, nothing moves.
    const refused = await mcpBuy(`${service("weather").url}?city=Graz`, { authorization: `Bearer ${grant.token}` });
    expect(refused, JSON.stringify(refused)).toMatchObject({ status: "failed", reason: "limit-exceeded" });
    expect(await harness.usdcBalance(wallet)).toBe(before.user - priceOf("weather"));

    const agentPays = await mcpBuy(`${service("weather").url}?city=Linz`, {});
    expect(agentPays).toMatchObject({ status: "paid" });
    expect(await harness.usdcBalance(agent)).toBe(before.agent - priceOf("weather"));
  });
  // Last in this file: it moves the chain's clock an hour ahead of this process's.
  it("an allowance the chain sees expired is refused and said in words, whatever the app's clock says; nothing moves", { timeout: 120_000 }, async () => {
    const grant = await grantOf(priceOf("weather") * 2n);
    const wallet = user().address;
    await chain().request({ method: "evm_increaseTime" as never, params: [3_700] as never });
    await chain().request({ method: "evm_mine" as never, params: [] as never });
    const balance = await harness.usdcBalance(wallet);

    const result = await ask(`${service("weather").url}?city=Bern`, { authorization: `Bearer ${grant.token}` });
    const failed = result.payments.find((payment) => payment.status === "failed");
    expect(failed?.message).toMatch(/Permit2 refused to move 0\.01 USDC from your wallet: the allowance you signed has expired; nothing was signed/);
    expect(statuses(result)).not.toContain("verifying");
    expect(await harness.usdcBalance(wallet)).toBe(balance);
  });
});

async function mcpBuy(url: string, headers: Record<string, string>): Promise<Record<string, unknown>> {
  const transport = new StreamableHTTPClientTransport(new URL("http://127.0.0.1:3000/api/mcp"), {
    fetch: (input: string | URL, init?: RequestInit) => handleMcpRequest(new Request(input, init), () => harness.deps),
    requestInit: { headers },
  });
  const client = new Client({ name: "grant-payments-test", version: "1.0.0" });
  await client.connect(transport);
  try {
    const result = (await client.callTool({ name: "buy", arguments: { url, method: "GET" } }, undefined, { timeout: 55_000 })) as CallToolResult;
    return result.structuredContent as Record<string, unknown>;
  } finally {
    await client.close();
  }
}
