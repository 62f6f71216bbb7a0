/**
 * Who may spend the agent wallet, and whose paid results are whose, tried as an attacker would:
 * fresh wallets that sign in through the real sign-in routes, two API keys sending the same
 * body and Idempotency-Key, and an anonymous caller naming its own URL. A scripted model
 * (the real OpenAI provider against a local fake) calls whatever URL the user wrote; the chain
 * and a hostile service's request log are the judges of what happened.
 */
import { randomUUID } from "node:crypto";
import { createSiweMessage } from "viem/siwe";
import { generatePrivateKey, privateKeyToAccount, type PrivateKeyAccount } from "viem/accounts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createBaseModel } from "../../lib/agent/model/create-chat-model";
import { SESSION_COOKIE } from "../../lib/auth/session-cookie";
import { NONCE_COOKIE } from "../../lib/auth/siwe-nonce";
import { handleNonceRequest, handleSignInRequest } from "../../lib/sign-in/handle-auth-requests";
import { startChatHarness, userMessage, type ChatHarness } from "../support/chat-harness";
import { startFakeOpenAiServer, type FakeOpenAiServer } from "../support/fake-openai-server";
import { callUserNamedUrl } from "../support/scripted-replies";
import { exactUsdcOption, hostileWorldOf, startHostileService, type HostileService } from "../support/hostile-service";

const CENT = 10_000n;
const SESSION_SECRET = "a-test-session-secret-of-at-least-32-characters";
const SITE = "127.0.0.1:3000";

/** Signs in through the real routes (nonce cookie, EIP-4361 message, signature) and returns the session cookie. */
async function signIn(harness: ChatHarness, account: PrivateKeyAccount): Promise<string> {
  const deps = () => harness.deps;
  const issued = await handleNonceRequest(new Request(`http://${SITE}/api/auth/nonce`, { headers: { host: SITE } }), deps);
  expect(issued.status).toBe(200);
  const { nonce } = (await issued.json()) as { nonce: string };
  const nonceCookie =
    issued.headers
      .getSetCookie()
      .find((cookie) => cookie.startsWith(`${NONCE_COOKIE}=`))
      ?.split(";")[0] ?? "";
  const message = createSiweMessage({
    domain: SITE,
    address: account.address,
    uri: `http://${SITE}`,
    version: "1",
    chainId: harness.devnet.chainId,
    nonce,
    issuedAt: new Date(),
  });
  const response = await handleSignInRequest(
    new Request(`http://${SITE}/api/auth/siwe`, {
      method: "POST",
      headers: { "content-type": "application/json", host: SITE, cookie: nonceCookie },
      body: JSON.stringify({ message, signature: await account.signMessage({ message }) }),
    }),
    deps,
  );
  expect(response.status).toBe(200);
  const session = response.headers.getSetCookie().find((cookie) => cookie.startsWith(`${SESSION_COOKIE}=`));
  if (!session) throw new Error("no session cookie");
  return session.split(";")[0] as string;
}

type World = { harness: ChatHarness; fake: FakeOpenAiServer; hostile: HostileService; payee: `0x${string}`; stop(): Promise<void> };

async function startWorld(env: Record<string, string>): Promise<World> {
  const payee = privateKeyToAccount(generatePrivateKey()).address;
  const fake = await startFakeOpenAiServer((request) => callUserNamedUrl(request.messages));
  const hostile = await startHostileService({
    "/drain": { accepts: (world) => [exactUsdcOption(world, { amount: CENT.toString(), payTo: payee })], answer: () => ({ data: "the attacker's answer" }) },
    "/login": { answer: (url) => ({ guess: url.search, ok: false }) },
  });
  try {
    const harness = await startChatHarness({
      env: { SESSION_SECRET, ...env },
      baseModel: createBaseModel({ apiKey: "test-key", baseUrl: fake.url, modelId: "gpt-test" }),
      network: async () => ({ outboundAllowlist: [new URL(hostile.origin).host] }),
    });
    hostile.configure(hostileWorldOf(harness.devnet, harness.deps.network));
    return {
      harness,
      fake,
      hostile,
      payee,
      async stop() {
        await harness.stop();
        await hostile.close();
        await fake.stop();
      },
    };
  } catch (error) {
    await hostile.close();
    await fake.stop();
    throw error;
  }
}

describe("authenticated access: signing in is not permission to spend the agent wallet", () => {
  let world: World;
  const listed = privateKeyToAccount(generatePrivateKey());

  beforeAll(async () => {
    world = await startWorld({ AGENT_WALLET_ACCESS: "authenticated", AGENT_WALLET_ALLOWED_WALLETS: listed.address });
  });
  afterAll(async () => {
    await world?.stop();
  });

  it("refuses fresh wallets that sign in (403 before any model call, nothing requested, nothing moved); a listed wallet pays within its budget", async () => {
    const { harness, hostile, payee } = world;
    const agent = harness.devnet.accounts.agent.address as `0x${string}`;
    const before = await harness.usdcBalance(agent);
    const modelCalls = world.fake.requests.length;
    for (let index = 0; index < 3; index += 1) {
      const cookie = await signIn(harness, privateKeyToAccount(generatePrivateKey()));
      const result = await harness.chat(userMessage(`Fetch ${hostile.url("/drain")}`), { headers: { cookie, "idempotency-key": randomUUID() } });
      expect(result.response.status).toBe(403);
      expect(await result.response.json()).toMatchObject({ code: "forbidden:agent_wallet" });
    }
    expect(world.fake.requests.length).toBe(modelCalls);
    expect(hostile.requests).toEqual([]);
    expect(await harness.usdcBalance(agent)).toBe(before);
    expect(await harness.usdcBalance(payee)).toBe(0n);

    const cookie = await signIn(harness, listed);
    const paid = await harness.chat(userMessage(`Fetch ${hostile.url("/drain")}`), { headers: { cookie, "idempotency-key": randomUUID() } });
    expect(paid.finish).toMatchObject({ finishReason: "payment-complete" });
    expect(paid.response.headers.get("x-spending-limits")).toBe("per-payment=1 (budget), per-request=2 (budget), daily=5 (budget)");
    expect(await harness.usdcBalance(payee)).toBe(CENT);
  });

  it("makes no outbound call for an anonymous caller: not to a URL it names, even paying from its own wallet", async () => {
    const { harness, hostile } = world;
    const seen = hostile.requests.length;
    for (let guess = 0; guess < 3; guess += 1) {
      const result = await harness.chat({
        ...userMessage(`Fetch ${hostile.url("/login")}?password=guess${guess}`),
        walletAddress: harness.devnet.accounts.user.address,
      });
      expect(result.response.status).toBe(200);
      expect(result.text).not.toMatch(/guess/);
    }
    expect(hostile.requests.length).toBe(seen);
  });
});

describe("signed-in access: any wallet, a small budget each and a cap for all of them", () => {
  let world: World;

  beforeAll(async () => {
    world = await startWorld({
      AGENT_WALLET_ACCESS: "signed-in",
      OPEN_SIGN_IN_BUDGET_PER_PAYMENT: "0.01",
      OPEN_SIGN_IN_BUDGET_PER_REQUEST: "0.01",
      OPEN_SIGN_IN_BUDGET_DAILY: "0.01",
      OPEN_SIGN_IN_DAILY_CAP: "0.02",
    });
  });
  afterAll(async () => {
    await world?.stop();
  });

  it("lets each fresh wallet spend its own budget until the shared cap, and the chain shows exactly that", async () => {
    const { harness, hostile, payee } = world;
    const outcomes: (string | undefined)[] = [];
    for (let index = 0; index < 4; index += 1) {
      const cookie = await signIn(harness, privateKeyToAccount(generatePrivateKey()));
      const result = await harness.chat(userMessage(`Fetch ${hostile.url("/drain")}`), { headers: { cookie, "idempotency-key": randomUUID() } });
      expect(result.response.status).toBe(200);
      outcomes.push(result.finish?.finishReason);
      if (result.finish?.finishReason === "limit-exceeded") {
        expect(result.payments.find((payment) => payment.status === "failed")?.message).toMatch(/all signed-in wallets share/);
      }
    }
    expect(outcomes).toEqual(["payment-complete", "payment-complete", "limit-exceeded", "limit-exceeded"]);
    expect(await harness.usdcBalance(payee)).toBe(2n * CENT);
    // One wallet cannot take a second payment past its own budget.
    const cookie = await signIn(harness, privateKeyToAccount(generatePrivateKey()));
    const again = await harness.chat(userMessage(`Fetch ${hostile.url("/drain")}`), { headers: { cookie, "idempotency-key": randomUUID() } });
    expect(again.finish).toMatchObject({ finishReason: "limit-exceeded" });
  });
});

describe("results belong to the caller who paid", () => {
  let world: World;

  beforeAll(async () => {
    world = await startWorld({ AGENT_WALLET_ACCESS: "authenticated" });
  });
  afterAll(async () => {
    await world?.stop();
  });

  it("never gives key B key A's paid result, with or without the same Idempotency-Key, and leaves A's journal row as it was", async () => {
    const { harness, hostile, payee } = world;
    const keys = harness.deps.store.apiKeys;
    const a = await keys.create({ name: "a", budget: { perPayment: 5n * CENT, perRequest: 5n * CENT, daily: 5n * CENT } });
    const b = await keys.create({ name: "b", budget: { perPayment: 100n, perRequest: 100n, daily: 100n } });
    const body = userMessage(`Fetch ${hostile.url("/drain")}`);

    const paid = await harness.chat(body, { headers: { authorization: `Bearer ${a.token}`, "idempotency-key": "k2" } });
    expect(paid.finish).toMatchObject({ finishReason: "payment-complete" });
    expect(paid.text).toMatch(/the attacker's answer/);
    const paymentId = paid.finish?.payments[0]?.id as string;
    const rowBefore = await harness.deps.store.journal.get(paymentId);
    expect(rowBefore).toMatchObject({ status: "delivered" });

    for (const headers of [{ "idempotency-key": "k2" }, {}] as Record<string, string>[]) {
      const other = await harness.chat(body, { headers: { authorization: `Bearer ${b.token}`, ...headers } });
      expect(other.response.status).toBe(200);
      expect(other.finish?.finishReason).toBe("limit-exceeded");
      expect(other.text).not.toMatch(/the attacker's answer/);
      expect(other.payments.map((payment) => payment.message ?? "").join(" ")).not.toMatch(/earlier attempt/);
    }
    expect(await harness.usdcBalance(payee)).toBe(CENT);
    expect(await harness.deps.store.journal.get(paymentId)).toEqual(rowBefore);

    // A's own retry still gets A's recorded result, not a second payment.
    const retry = await harness.chat(body, { headers: { authorization: `Bearer ${a.token}`, "idempotency-key": "k2" } });
    expect(retry.finish).toMatchObject({ finishReason: "payment-complete" });
    expect(await harness.usdcBalance(payee)).toBe(CENT);
  });
});
