/**
 * Who may spend the operator's money, on a deployment that is not the local world: the local
 * chain set up as if it were a public network (Base Sepolia), where the agent wallet pays only
 * for callers the operator named (API keys, signed-in wallets), each within its own budget, and
 * the wallet keeps its own daily cap over all of them. The chain is the judge of what moved.
 */
import { randomUUID } from "node:crypto";
import { privateKeyToAccount } from "viem/accounts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { CallerBudget } from "../../lib/access/api-keys";
import { createSessionToken, SESSION_COOKIE } from "../../lib/auth/session-cookie";
import { lazyDatabase, createDatabaseStore } from "../../lib/store/create-database-store";
import { startChatHarness, userMessage, type ChatHarness } from "../support/chat-harness";

const CENT = 10_000n;
const SESSION_SECRET = "a-test-session-secret-of-at-least-32-characters";
// A public network requires its own quote secret, as a real deployment would.
const QUOTE_SECRET = "a-test-quote-secret-of-at-least-32-characters!";
const budget = (perPayment: bigint, perRequest: bigint, daily: bigint): CallerBudget => ({ perPayment, perRequest, daily });
const weather = (city = "Lisbon") => userMessage(`What's the weather in ${city}?`);
// The one signed-in wallet the operator allows to spend the agent wallet.
const LISTED_WALLET = privateKeyToAccount("0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d").address;
const keyed = (token: string) => ({ headers: { authorization: `Bearer ${token}`, "idempotency-key": randomUUID() } });

describe("a public network: the agent wallet pays for named callers only", () => {
  let harness: ChatHarness;
  const agent = () => harness.devnet.accounts.agent.address as `0x${string}`;

  beforeAll(async () => {
    harness = await startChatHarness({
      env: { SESSION_SECRET, QUOTE_SECRET, APP_URL: "https://agent.example", RATE_LIMIT_CALLER_REQUESTS: "4", AGENT_WALLET_ALLOWED_WALLETS: LISTED_WALLET },
      // The local chain, configured as if it were Base Sepolia: access defaults to named callers.
      network: async () => ({ name: "base-sepolia" }),
    });
  });
  afterAll(async () => {
    await harness?.stop();
  });

  it("refuses an anonymous request that would make the agent wallet pay: 401 with a challenge, before any model call, nothing moves", async () => {
    const before = await harness.usdcBalance(agent());
    const result = await harness.chat(weather());
    expect(result.response.status).toBe(401);
    expect(result.response.headers.get("www-authenticate")).toBe('Bearer realm="x402-agent"');
    expect(result.response.headers.get("content-type")).toMatch(/^application\/problem\+json/);
    expect(await result.response.json()).toMatchObject({ status: 401, code: "unauthorized:credentials_required" });
    expect(await harness.usdcBalance(agent())).toBe(before);
  });

  it("still lets an anonymous caller chat, discover and quote from their own wallet", async () => {
    const user = harness.devnet.accounts.user.address;
    const result = await harness.chat({ ...weather(), walletAddress: user });
    expect(result.response.status).toBe(200);
    expect(result.finish).toMatchObject({ finishReason: "stop" });
    expect(result.finish?.pendingApproval).toBeDefined();
  });

  it("pays for a keyed caller within its budget, and says which limits applied", async () => {
    const { token } = await harness.deps.store.apiKeys.create({ name: "ci", budget: budget(5n * CENT, 5n * CENT, 5n * CENT) });
    const before = await harness.usdcBalance(agent());
    const result = await harness.chat(weather(), keyed(token));
    expect(result.response.status).toBe(200);
    expect(result.finish).toMatchObject({ finishReason: "payment-complete" });
    expect(result.response.headers.get("x-spending-limits")).toBe("per-payment=0.05 (budget), per-request=0.05 (budget), daily=0.05 (budget)");
    expect(await harness.usdcBalance(agent())).toBe(before - CENT);
  });

  it("clamps spendingLimits above the key's budget and reports it; the key's daily budget stops the next payment", async () => {
    const { key, token } = await harness.deps.store.apiKeys.create({ name: "tight", budget: budget(CENT, CENT, CENT) });
    const first = await harness.chat({ ...weather(), spendingLimits: { daily: 50, perRequest: "0.01" } }, keyed(token));
    expect(first.finish).toMatchObject({ finishReason: "payment-complete" });
    expect(first.response.headers.get("x-spending-limits")).toBe("per-payment=0.01 (budget), per-request=0.01 (requested), daily=0.01 (budget); clamped=daily");
    const before = await harness.usdcBalance(agent());
    const second = await harness.chat({ ...weather("Porto"), spendingLimits: { daily: 50 } }, keyed(token));
    expect(second.finish).toMatchObject({ finishReason: "limit-exceeded" });
    const failed = second.payments.find((payment) => payment.status === "failed");
    expect(failed?.message).toMatch(/daily limit of the API key “tight”'s budget, 0\.01 USDC/);
    expect(await harness.usdcBalance(agent())).toBe(before);
    expect(await harness.deps.store.ledger.spentInScope(`key:${key.id}`)).toEqual({ settled: CENT, reserved: 0n });
  });

  it("refuses a key the operator did not allow to use the agent wallet (403), but lets it pay from its own wallet", async () => {
    const { token } = await harness.deps.store.apiKeys.create({ name: "own-wallet-only", budget: budget(CENT, CENT, CENT), agentWallet: false });
    const refused = await harness.chat(weather(), keyed(token));
    expect(refused.response.status).toBe(403);
    expect(await refused.response.json()).toMatchObject({ code: "forbidden:agent_wallet" });
    const own = await harness.chat({ ...weather(), walletAddress: harness.devnet.accounts.user.address }, keyed(token));
    expect(own.response.status).toBe(200);
  });

  it("refuses a revoked, an expired, an unknown and a malformed key with 401 invalid_token, even for a request that pays nothing", async () => {
    const store = harness.deps.store.apiKeys;
    const revoked = await store.create({ name: "revoked", budget: budget(CENT, CENT, CENT) });
    await store.revoke(revoked.key.id);
    const expired = await store.create({ name: "expired", budget: budget(CENT, CENT, CENT), expiresAt: Date.now() + 50 });
    await new Promise((resolve) => setTimeout(resolve, 80));
    const unknown = revoked.token.replace(/_[^_]+$/, `_${"A".repeat(43)}`);
    for (const authorization of [`Bearer ${revoked.token}`, `Bearer ${expired.token}`, `Bearer ${unknown}`, "Bearer not-a-key", "Basic dXNlcjpwYXNz"]) {
      const result = await harness.chat({ ...userMessage("Hello"), walletAddress: harness.devnet.accounts.user.address }, { headers: { authorization } });
      expect(result.response.status, authorization).toBe(401);
      expect(result.response.headers.get("www-authenticate"), authorization).toMatch(/^Bearer realm="x402-agent", error="invalid_(token|request)"$/);
    }
  });

  it("pays for a signed-in wallet the operator listed, within the default signed-in budget; refuses one it did not (403)", async () => {
    const wallet = LISTED_WALLET;
    const now = Date.now();
    const stranger = privateKeyToAccount("0x5de4111afa1a4b94908f83103eb1f1706367c2e68ca870fc3fb9a804cdab365a").address;
    const strangerCookie = `${SESSION_COOKIE}=${createSessionToken({ address: stranger, chainId: harness.devnet.chainId, issuedAt: now, expiresAt: now + 60_000 }, SESSION_SECRET)}`;
    const refused = await harness.chat(weather(), { headers: { cookie: strangerCookie, "idempotency-key": randomUUID() } });
    expect(refused.response.status).toBe(403);
    expect(await refused.response.json()).toMatchObject({ code: "forbidden:agent_wallet" });
    // A session for another chain is a bad credential here, as on the history routes.
    const otherChain = `${SESSION_COOKIE}=${createSessionToken({ address: wallet, chainId: 8453, issuedAt: now, expiresAt: now + 60_000 }, SESSION_SECRET)}`;
    expect((await harness.chat(weather(), { headers: { cookie: otherChain } })).response.status).toBe(401);
    const cookie = `${SESSION_COOKIE}=${createSessionToken({ address: wallet, chainId: harness.devnet.chainId, issuedAt: now, expiresAt: now + 60_000 }, SESSION_SECRET)}`;
    const result = await harness.chat(weather(), { headers: { cookie, "idempotency-key": randomUUID() } });
    expect(result.finish).toMatchObject({ finishReason: "payment-complete" });
    expect(result.response.headers.get("x-spending-limits")).toBe("per-payment=1 (budget), per-request=2 (budget), daily=5 (budget)");
    expect(await harness.deps.store.ledger.spentInScope(`account:${wallet.toLowerCase()}`)).toEqual({ settled: CENT, reserved: 0n });
  });

  it("counts each caller's requests in a window of its own: one key at its limit does not stop another", async () => {
    const first = await harness.deps.store.apiKeys.create({ name: "chatty", budget: budget(CENT, CENT, CENT) });
    const second = await harness.deps.store.apiKeys.create({ name: "quiet", budget: budget(CENT, CENT, CENT) });
    const hello = { ...userMessage("Hello"), walletAddress: harness.devnet.accounts.user.address };
    const statuses: number[] = [];
    for (let index = 0; index < 5; index += 1) statuses.push((await harness.chat(hello, keyed(first.token))).response.status);
    expect(statuses).toEqual([200, 200, 200, 200, 429]);
    expect((await harness.chat(hello, keyed(second.token))).response.status).toBe(200);
  });
});

/**
 * Two keys whose daily budgets add up to more than the wallet's cap, and enough turns that each
 * key could use its whole budget: the cap is the limit that binds. Under the garbage-collection
 * storm one process holding the app, the local world and the test cannot serve 50 turns at once
 * (services time out after taking the payment), so it runs the same shape at about half the size.
 */
const SHAPE = process.env.GC_STORM_MS ? { parallel: 14, budgetA: 4, budgetB: 7, cap: 10 } : { parallel: 50, budgetA: 8, budgetB: 15, cap: 20 };
const PARALLEL = SHAPE.parallel;

describe(`${PARALLEL} parallel requests over two keys, on the database ledger`, () => {
  let harness: ChatHarness;
  const database = lazyDatabase({ kind: "pglite" });

  beforeAll(async () => {
    harness = await startChatHarness({
      // All turns start at once in one process with the whole local world, so a service may take
      // longer than the default 20 s authorization to answer (CI's storm run timed out two of 26).
      // The authorization lives as long as the 50 s turn allows; what is checked here is money.
      env: { QUOTE_SECRET, APP_URL: "https://agent.example", AGENT_WALLET_DAILY_CAP: String(SHAPE.cap / 100), AGENT_AUTHORIZATION_TTL_SECONDS: "40" },
      network: async () => ({ name: "base-sepolia" }),
      store: createDatabaseStore(database),
    });
  });
  afterAll(async () => {
    await harness?.stop();
  });

  it("never exceeds either key's daily budget nor the wallet's cap, and the ledger equals the chain", async () => {
    const keys = harness.deps.store.apiKeys;
    const a = await keys.create({ name: "a", budget: budget(CENT, CENT, BigInt(SHAPE.budgetA) * CENT) });
    const b = await keys.create({ name: "b", budget: budget(CENT, CENT, BigInt(SHAPE.budgetB) * CENT) });
    const agent = harness.devnet.accounts.agent.address as `0x${string}`;
    const merchant = harness.devnet.accounts.merchant.address as `0x${string}`;
    const before = await Promise.all([harness.usdcBalance(agent), harness.usdcBalance(merchant)]);

    const results = await Promise.all(
      Array.from({ length: PARALLEL }, (_, index) => harness.chat(weather(`City ${index}`), keyed(index % 2 === 0 ? a.token : b.token))),
    );
    expect(results.map((result) => result.response.status)).toEqual(Array(PARALLEL).fill(200));
    const paid = (parity: number) => results.filter((result, index) => index % 2 === parity && result.finish?.finishReason === "payment-complete").length;
    const refusedOnly = results.every((result) => ["payment-complete", "limit-exceeded"].includes(result.finish?.finishReason ?? ""));
    expect(
      refusedOnly,
      JSON.stringify(
        results
          .map((result) => [result.finish?.finishReason, result.payments.at(-1)?.message])
          .filter(([reason]) => reason !== "payment-complete" && reason !== "limit-exceeded"),
      ),
    ).toBe(true);
    expect(paid(0)).toBeLessThanOrEqual(SHAPE.budgetA);
    expect(paid(1)).toBeLessThanOrEqual(SHAPE.budgetB);
    // The budgets add up to more than the wallet's cap, so the cap is what binds: exactly the cap paid.
    expect(SHAPE.budgetA + SHAPE.budgetB).toBeGreaterThan(SHAPE.cap);
    expect(Math.min(SHAPE.budgetA, PARALLEL / 2) + Math.min(SHAPE.budgetB, PARALLEL / 2)).toBeGreaterThan(SHAPE.cap);
    expect(paid(0) + paid(1)).toBe(SHAPE.cap);

    const spent = BigInt(paid(0) + paid(1)) * CENT;
    expect(await Promise.all([harness.usdcBalance(agent), harness.usdcBalance(merchant)])).toEqual([before[0]! - spent, before[1]! + spent]);
    const ledger = harness.deps.store.ledger;
    expect(await ledger.spentToday(agent)).toEqual({ settled: spent, reserved: 0n });
    expect(await ledger.spentInScope(`key:${a.key.id}`)).toEqual({ settled: BigInt(paid(0)) * CENT, reserved: 0n });
    expect(await ledger.spentInScope(`key:${b.key.id}`)).toEqual({ settled: BigInt(paid(1)) * CENT, reserved: 0n });
    const hashes = results.flatMap((result) => (result.finish?.txHash ? [result.finish.txHash] : []));
    expect(new Set(hashes).size).toBe(SHAPE.cap);
  });
});
