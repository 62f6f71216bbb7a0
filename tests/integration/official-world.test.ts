/**
 * The agent against a world built only from the official x402 packages (tests/support/
 * official-world.ts): anvil with Circle's USDC on a chain id of its own, a facilitator of
 * `@x402/core` + `@x402/evm` + the bazaar extension whose discovery list fills only from
 * payments, and services behind `@x402/express`'s payment middleware.
 *
 * 1. The official client (`@x402/fetch` + `@x402/evm`) pays two services once: the facilitator
 *    catalogues them, as a real Bazaar fills.
 * 2. The app, pointed at this world by configuration only (`X402_NETWORK=custom` and its
 *    variables, no coordinates file), discovers, pays and delivers the GET with a query and the
 *    POST with a JSON body with the offline demo model; the chain shows each price moved.
 * 3. A service first bought by our agent (its URL named by the user) is catalogued by the
 *    official facilitator afterwards: the agent echoes the 402's `extensions.bazaar`.
 * 4. A price over the per-payment limit is refused before anything is signed; nothing moves.
 * 5. Pointed at the same catalogue as a 2.10-era facilitator lists it (the declaration as a
 *    top-level `discoveryInfo`), the app still calls the POST service with POST and pays it.
 */
import { decodePaymentResponseHeader } from "@x402/core/http";
import { HTTPFacilitatorClient } from "@x402/core/server";
import { ExactEvmScheme } from "@x402/evm/exact/client";
import { withBazaar } from "@x402/extensions/bazaar";
import { wrapFetchWithPayment, x402Client } from "@x402/fetch";
import { createPublicClient, erc20Abi, http, parseAbi, parseEventLogs, type Address, type Hex } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { listPageProblems } from "../../devnet/conformance/x402-conformance";
import { createBaseModel } from "../../lib/agent/model/create-chat-model";
import { createAppDependencies } from "../../lib/app/create-app-dependencies";
import { type AppDependencies } from "../../lib/doors/app-dependencies";
import { handleChatRequest } from "../../lib/chat/handle-chat-request";
import { parseEnv, type Env } from "../../lib/env";
import { networkConfigFromEnv } from "../../lib/network/network-config";
import { createMemoryStore } from "../../lib/store/create-memory-store";
import { decodeStream, findSequenceViolations, type FinishEvent, type PaymentEvent, type StreamEvent } from "../../lib/stream";
import { startFakeOpenAiServer, type FakeOpenAiServer } from "../support/fake-openai-server";
import { startOfficialWorld, type OfficialWorld } from "../support/official-world";
import type { OfficialService } from "../support/official-services";
import { callUserNamedUrl, textOf } from "../support/scripted-replies";

let world: OfficialWorld;
let chain: ReturnType<typeof createPublicClient>;

beforeAll(async () => {
  world = await startOfficialWorld();
  chain = createPublicClient({ transport: http(world.rpcUrl) });
});

afterAll(async () => {
  await world?.stop();
});

const tokenDomainAbi = parseAbi(["function name() view returns (string)", "function version() view returns (string)"]);

const usdcBalance = (address: Address) => chain.readContract({ address: world.token.address, abi: erc20Abi, functionName: "balanceOf", args: [address] });

/** The world's USDC transfers in one transaction, as [from, to, value]. */
async function transfersIn(hash: Hex): Promise<[Address, Address, bigint][]> {
  const receipt = await chain.getTransactionReceipt({ hash });
  return parseEventLogs({ abi: erc20Abi, eventName: "Transfer", logs: receipt.logs })
    .filter((log) => log.address.toLowerCase() === world.token.address.toLowerCase())
    .map((log) => [log.args.from, log.args.to, log.args.value]);
}

/** The facilitator's discovery list, read with the official bazaar client. */
async function catalogued(): Promise<string[]> {
  const page = await withBazaar(new HTTPFacilitatorClient({ url: world.facilitator.url })).extensions.bazaar.listResources({ type: "http", limit: 100 });
  return page.items.map((item) => item.resource);
}

/**
 * The app's configuration for this world, as an operator writes it: the network's coordinates
 * in variables, no coordinates file. The token's EIP-712 name and version are read from the chain.
 */
async function appEnv(facilitatorUrl = world.facilitator.url): Promise<Env> {
  const [name, version] = await Promise.all([
    chain.readContract({ address: world.token.address, abi: tokenDomainAbi, functionName: "name" }),
    chain.readContract({ address: world.token.address, abi: tokenDomainAbi, functionName: "version" }),
  ]);
  return parseEnv({
    X402_NETWORK: "custom",
    CHAIN_ID: String(world.chainId),
    RPC_URL: world.rpcUrl,
    FACILITATOR_URL: facilitatorUrl,
    ASSET_ADDRESS: world.token.address,
    ASSET_NAME: name,
    ASSET_VERSION: version,
    AGENT_PRIVATE_KEY: world.accounts.agent.privateKey,
    QUOTE_SECRET: "official-world-quote-secret-0123456789abcdef",
    APP_URL: "http://127.0.0.1:3000",
    OUTBOUND_ALLOWLIST: world.services.host,
    // The tests count every request a service receives: no unpaid discovery probe beside the purchase's.
    DISCOVERY_PROBES: "false",
    // Outside the local world the agent wallet pays only for named callers by default; these
    // tests call anonymously, as the local world's do.
    AGENT_WALLET_ACCESS: "open",
    DEMO_MODEL_CHUNK_DELAY_MS: "0",
    RATE_LIMIT_REQUESTS: "10000",
  });
}

type ChatOutcome = { events: StreamEvent[]; text: string; payments: PaymentEvent[]; finish: FinishEvent | undefined };

/** One chat request through the route's handler, the stream read to its end. */
async function chat(deps: AppDependencies, body: unknown): Promise<ChatOutcome> {
  const response = await handleChatRequest(
    new Request("http://127.0.0.1/api/chat", { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) }),
    () => deps,
  );
  expect(
    response.status,
    await response
      .clone()
      .text()
      .catch(() => ""),
  ).toBe(200);
  const events: StreamEvent[] = [];
  for await (const item of decodeStream(response.body as ReadableStream<Uint8Array>)) if (item.kind === "event") events.push(item.event);
  expect(findSequenceViolations(events)).toEqual([]);
  return {
    events,
    text: events.map((event) => (event.type === "text" ? event.text : "")).join(""),
    payments: events.flatMap((event) => (event.type === "payment" ? [event.payment] : [])),
    finish: events.flatMap((event) => (event.type === "finish" ? [event.finish] : [])).at(-1),
  };
}

const ask = (content: string, extra: Record<string, unknown> = {}) => ({ messages: [{ role: "user", content }], ...extra });

/** The answers a service served so far (its ids), to tell which one a request brought. */
const servedBy = (service: OfficialService) => world.services.served.filter((answer) => answer.service === service.name);

/**
 * Asserts one paid delivery end to end: the stream finished `payment-complete` with a hash, the
 * text carries the answer the service served for it, and that transaction moved exactly the
 * price from the agent to the merchant, and nothing else.
 */
async function expectPaidDelivery(outcome: ChatOutcome, service: OfficialService, servedBefore: number): Promise<void> {
  expect(outcome.finish?.finishReason, outcome.text).toBe("payment-complete");
  const hash = outcome.finish?.txHash as Hex;
  expect(hash).toMatch(/^0x[0-9a-f]{64}$/);
  expect(outcome.payments.map((payment) => payment.status)).toContain("delivered");
  const answers = servedBy(service).slice(servedBefore);
  expect(answers).toHaveLength(1);
  expect(outcome.text).toContain(answers[0]?.id);
  expect(await transfersIn(hash)).toEqual([[world.accounts.agent.address, world.accounts.merchant, service.amount]]);
}

describe("the official client fills the official facilitator's Bazaar", () => {
  it("pays the GET with a query and the POST with a JSON body once each; both are catalogued, the third service is not", async () => {
    const payer = privateKeyToAccount(world.accounts.payer.privateKey);
    const client = new x402Client()
      .register(world.network, new ExactEvmScheme(payer))
      .setSpendControls({ allowedAssets: [{ network: world.network, asset: world.token.address }] });
    const pay = wrapFetchWithPayment(fetch, client);
    const { weather, translate, tides } = world.services;
    expect(await catalogued()).toEqual([]);

    const paid = [
      { service: weather, response: await pay(`${weather.url}?city=Lisbon`) },
      {
        service: translate,
        response: await pay(translate.url, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ text: "Good morning", target: "fr" }),
        }),
      },
    ];
    for (const { service, response } of paid) {
      expect(response.status, service.name).toBe(200);
      const settlement = decodePaymentResponseHeader(response.headers.get("payment-response") ?? "");
      expect(settlement).toMatchObject({ success: true, payer: payer.address, network: world.network });
      expect(await transfersIn(settlement.transaction as Hex), service.name).toEqual([[payer.address, world.accounts.merchant, service.amount]]);
    }

    expect((await catalogued()).sort()).toEqual([translate.url, weather.url].sort());
    expect(await catalogued()).not.toContain(tides.url);
    // The facilitator's list passes the conformance checks the local world's discovery passes.
    const page = (await (await fetch(`${world.facilitator.url}/discovery/resources`)).json()) as unknown;
    expect(listPageProblems(page)).toEqual([]);
  });
});

describe("the app, configured for this world only, buys from it", () => {
  let env: Env;
  let deps: AppDependencies;
  let fake: FakeOpenAiServer | undefined;

  beforeAll(async () => {
    env = await appEnv();
    // The route's own wiring: the network from the environment, the offline demo model.
    deps = createAppDependencies(env, { store: createMemoryStore() });
  });

  afterAll(async () => {
    await deps?.store.close();
    await fake?.stop();
  });

  it("reads the network from its configuration: this chain, this token, this facilitator", () => {
    const network = networkConfigFromEnv(env);
    expect(network).toMatchObject({
      chainId: world.chainId,
      caip2: world.network,
      usdc: world.token.address,
      usdcName: world.token.name,
      usdcVersion: world.token.version,
      rpcUrl: world.rpcUrl,
      facilitatorUrl: world.facilitator.url,
    });
    expect(network.devnet).toBeUndefined();
    expect(deps.isDemoModel).toBe(true);
  });

  it("discovers, pays and delivers the GET with a query parameter", async () => {
    const { weather } = world.services;
    const before = await Promise.all([usdcBalance(world.accounts.agent.address), usdcBalance(world.accounts.merchant)]);
    const servedBefore = servedBy(weather).length;

    const outcome = await chat(deps, ask("Buy the weather in Paris"));

    await expectPaidDelivery(outcome, weather, servedBefore);
    expect(servedBy(weather).at(-1)?.data).toMatchObject({ city: "Paris" });
    expect(await Promise.all([usdcBalance(world.accounts.agent.address), usdcBalance(world.accounts.merchant)])).toEqual([
      before[0] - weather.amount,
      before[1] + weather.amount,
    ]);
  });

  it("discovers, pays and delivers the POST with a JSON body", async () => {
    const { translate } = world.services;
    const before = await Promise.all([usdcBalance(world.accounts.agent.address), usdcBalance(world.accounts.merchant)]);
    const servedBefore = servedBy(translate).length;

    const outcome = await chat(deps, ask('Buy a translation of "Good evening"'));

    await expectPaidDelivery(outcome, translate, servedBefore);
    expect(servedBy(translate).at(-1)?.data).toMatchObject({ text: "Good evening", target: "fr" });
    expect(await Promise.all([usdcBalance(world.accounts.agent.address), usdcBalance(world.accounts.merchant)])).toEqual([
      before[0] - translate.amount,
      before[1] + translate.amount,
    ]);
  });

  it("the official facilitator catalogues a service first bought by our agent", async () => {
    const { tides } = world.services;
    expect(await catalogued()).not.toContain(tides.url);
    // The demo model buys only what discovery lists; a model that calls the URL the user wrote
    // (an OpenAI-compatible stand-in) buys the unlisted service, then repeats the tool's result whole.
    fake = await startFakeOpenAiServer(({ messages }) => (messages.at(-1)?.role === "tool" ? { text: textOf(messages.at(-1)) } : callUserNamedUrl(messages)));
    const named = createAppDependencies(env, {
      store: createMemoryStore(),
      baseModel: createBaseModel({ apiKey: "test-key", baseUrl: fake.url, modelId: "gpt-test" }),
    });
    try {
      const servedBefore = servedBy(tides).length;
      const outcome = await chat(named, ask(`Buy the tide times from ${tides.url}?port=Brest`));
      await expectPaidDelivery(outcome, tides, servedBefore);
    } finally {
      await named.store.close();
    }
    // Catalogued from the agent's payment alone: its payload echoed the 402's bazaar declaration.
    expect(await catalogued()).toContain(tides.url);
    const settled = world.facilitator.calls.filter((call) => call.paymentPayload.resource?.url.startsWith(tides.url));
    expect(settled.map((call) => call.path)).toEqual(["verify", "settle"]);
    expect(settled[0]?.paymentPayload.extensions?.bazaar).toMatchObject({ info: { input: { type: "http", method: "GET" } } });
  });

  it("refuses a price over the per-payment limit before anything is signed; nothing moves", async () => {
    const { translate } = world.services;
    const agent = world.accounts.agent.address;
    const before = await Promise.all([usdcBalance(agent), usdcBalance(world.accounts.merchant)]);
    const paidRequestsBefore = world.services.requests.filter((request) => request.paid).length;
    const facilitatorCallsBefore = world.facilitator.calls.length;

    // 0.02 USDC asked, 0.015 allowed per payment.
    const outcome = await chat(deps, ask('Buy a translation of "See you tomorrow"', { spendingLimits: { perPayment: "0.015" } }));

    expect(outcome.finish?.finishReason, outcome.text).toBe("limit-exceeded");
    expect(outcome.finish?.txHash).toBeNull();
    const statuses = outcome.payments.map((payment) => payment.status);
    expect(statuses).toContain("failed");
    expect(statuses).not.toContain("signing");
    expect(outcome.payments.find((payment) => payment.status === "failed")).toMatchObject({
      reason: "limit-exceeded",
      resource: expect.stringContaining(translate.url),
    });
    // Asked for its terms (402), never sent a payment; the facilitator never heard of it.
    expect(world.services.requests.filter((request) => request.paid).length).toBe(paidRequestsBefore);
    expect(world.facilitator.calls.length).toBe(facilitatorCallsBefore);
    expect(await Promise.all([usdcBalance(agent), usdcBalance(world.accounts.merchant)])).toEqual(before);
  });
});

describe("the app, configured with a 2.10-era facilitator that lists the declaration as top-level `discoveryInfo`", () => {
  let deps: AppDependencies;

  beforeAll(async () => {
    deps = createAppDependencies(await appEnv(`${world.facilitator.url}/v2.10`), { store: createMemoryStore() });
  });

  afterAll(async () => {
    await deps?.store.close();
  });

  it("reads the declaration there: the POST service is called with POST and its JSON body, and paid", async () => {
    const { translate } = world.services;
    const page = (await (await fetch(`${world.facilitator.url}/v2.10/discovery/resources`)).json()) as { items: Record<string, unknown>[] };
    const listed = page.items.find((item) => item.resource === translate.url);
    expect(listed).toMatchObject({ discoveryInfo: { input: { type: "http", method: "POST" } } });
    expect(listed).not.toHaveProperty("extensions");
    const servedBefore = servedBy(translate).length;
    const requestsBefore = world.services.requests.length;

    const outcome = await chat(deps, ask('Buy a translation of "Good night"'));

    await expectPaidDelivery(outcome, translate, servedBefore);
    expect(servedBy(translate).at(-1)?.data).toMatchObject({ text: "Good night" });
    // Never tried with GET first: every request the service saw for it was a POST.
    const seen = world.services.requests.slice(requestsBefore).filter((request) => translate.url.endsWith(request.path));
    expect(seen.map((request) => request.method)).toEqual(["POST", "POST"]);
  });
});
