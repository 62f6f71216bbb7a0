/**
 * The local world end to end, paid with the official x402 client (@x402/fetch with @x402/evm's
 * exact scheme, v2 and v1) and nothing of the project's in the payment path.
 */
import { decodePaymentRequiredHeader, decodePaymentResponseHeader, HTTPFacilitatorClient } from "@x402/core/http";
import type { Network } from "@x402/core/types";
import { ExactEvmScheme } from "@x402/evm/exact/client";
import { ExactEvmSchemeV1 } from "@x402/evm/v1";
import { withBazaar } from "@x402/extensions/bazaar";
import { wrapFetchWithPayment, x402Client } from "@x402/fetch";
import { createPublicClient, erc20Abi, hashDomain, http, parseAbi, type Address, type Hex } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { fiatTokenSetupAbi, startDevnet, type Devnet } from "../../devnet";
import { registerLocalV1Network } from "../../lib/network/local-v1-network";

const eip712DomainTypes = [
  { name: "name", type: "string" },
  { name: "version", type: "string" },
  { name: "chainId", type: "uint256" },
  { name: "verifyingContract", type: "address" },
] as const;
const authorizationStateAbi = parseAbi(["function authorizationState(address authorizer, bytes32 nonce) view returns (bool)"]);

let devnet: Devnet;
let chain: ReturnType<typeof createPublicClient>;
/** Every payment header the client sent, by service URL, to replay them later. */
const sentPaymentHeaders = new Map<string, Record<string, string>>();

function balanceOf(address: string): Promise<bigint> {
  return chain.readContract({ address: devnet.usdc as Address, abi: erc20Abi, functionName: "balanceOf", args: [address as Address] });
}

/** The service's own example call: its URL with query or path filled in. */
function serviceUrl(service: Devnet["services"][number]): string {
  return service.example?.url ?? `${service.url}?${new URLSearchParams(service.queryParams)}`;
}

/** The request the example call makes: a JSON body for a POST service, nothing for GET. */
function exampleInit(service: Devnet["services"][number]): RequestInit {
  return service.example?.body ? { method: service.method, headers: { "content-type": "application/json" }, body: JSON.stringify(service.example.body) } : {};
}

/** The official client, configured the way any x402 buyer would configure it for this chain. */
function officialPayingFetch(privateKey: Hex) {
  const account = privateKeyToAccount(privateKey);
  // x402 v1 names chains, and @x402/evm's v1 table has no local chain: teach it ours (library
  // configuration, done once; the payment itself is all @x402 code).
  registerLocalV1Network(devnet.chainId, devnet.v1Network);
  const client = new x402Client()
    .register(devnet.network as Network, new ExactEvmScheme(account))
    .registerV1(devnet.v1Network as Network, new ExactEvmSchemeV1(account))
    // The devnet token is not one of x402's built-in assets, so it is allowed explicitly.
    .setSpendControls({
      allowedAssets: [
        { network: devnet.network as Network, asset: devnet.usdc },
        { network: devnet.v1Network as Network, asset: devnet.usdc },
      ],
    });
  const recordingFetch: typeof fetch = async (input, init) => {
    const request = new Request(input, init);
    for (const name of ["payment-signature", "x-payment"]) {
      const value = request.headers.get(name);
      if (value) sentPaymentHeaders.set(request.url.split("?")[0] ?? request.url, { [name]: value });
    }
    return fetch(request);
  };
  return wrapFetchWithPayment(recordingFetch, client);
}

beforeAll(async () => {
  devnet = await startDevnet({ slowDelayMs: 300 });
  chain = createPublicClient({ transport: http(devnet.rpcUrl) });
});

afterAll(async () => {
  await devnet?.stop();
});

describe("accounts", () => {
  it("funds the agent and the user with 100 USDC, the unfunded wallet with none, and all with gas", async () => {
    expect(await balanceOf(devnet.accounts.agent.address)).toBe(100_000_000n);
    expect(await balanceOf(devnet.accounts.user.address)).toBe(100_000_000n);
    expect(await balanceOf(devnet.accounts.unfunded.address)).toBe(0n);
    for (const account of [devnet.accounts.agent, devnet.accounts.user, devnet.accounts.unfunded]) {
      expect(await chain.getBalance({ address: account.address as Address })).toBeGreaterThan(0n);
    }
  });

  it("deploys a token with USDC's EIP-712 domain", async () => {
    expect({ name: devnet.usdcName, version: devnet.usdcVersion, decimals: devnet.usdcDecimals }).toEqual({ name: "USD Coin", version: "2", decimals: 6 });
    const address = devnet.usdc as Address;
    const [name, version, decimals, separator] = await Promise.all([
      chain.readContract({ address, abi: fiatTokenSetupAbi, functionName: "name" }),
      chain.readContract({ address, abi: fiatTokenSetupAbi, functionName: "version" }),
      chain.readContract({ address, abi: fiatTokenSetupAbi, functionName: "decimals" }),
      chain.readContract({ address, abi: fiatTokenSetupAbi, functionName: "DOMAIN_SEPARATOR" }),
    ]);
    expect({ name, version, decimals }).toEqual({ name: "USD Coin", version: "2", decimals: 6 });
    expect(separator).toBe(
      hashDomain({ domain: { name, version, chainId: BigInt(devnet.chainId), verifyingContract: address }, types: { EIP712Domain: eip712DomainTypes } }),
    );
  });
});

describe("402 answers", () => {
  it("v2 services list their exact requirements in the PAYMENT-REQUIRED header, other networks where they offer them", async () => {
    const local = (service: Devnet["services"][number]) => ({
      // A metered service asks for its ceiling with `upto` (tests/integration/upto-local-world.test.ts).
      scheme: service.scheme ?? "exact",
      network: "eip155:31337",
      // The listing that asks more than it lists: its 402 asks ten times its listed amount.
      amount: service.failure === "asks-more-than-listed" ? String(BigInt(service.amount ?? "0") * 10n) : service.amount,
      asset: devnet.usdc,
      payTo: service.payTo ?? devnet.accounts.merchant.address,
      extra: { name: "USD Coin", version: "2" },
    });
    const base = (service: Devnet["services"][number]) => ({
      scheme: "exact",
      network: "eip155:8453",
      amount: service.amount,
      asset: "0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913",
    });
    // The channel services' 402s (batch-settlement) are checked in batch-settlement-local-world.
    for (const service of devnet.services.filter((entry) => entry.x402Version === 2 && !entry.offline && entry.scheme !== "batch-settlement")) {
      const response = await fetch(serviceUrl(service), exampleInit(service));
      if (service.failure === "error-before-payment") {
        expect(response.status, service.name).toBe(500);
        continue;
      }
      expect(response.status, service.name).toBe(402);
      const required = decodePaymentRequiredHeader(response.headers.get("payment-required") ?? "");
      expect(required.x402Version).toBe(2);
      // The 402 names the URL the request went to, port included.
      expect(required.resource.url.split("?")[0], service.name).toBe(serviceUrl(service).split("?")[0]);
      const expected =
        service.name === "air-quality"
          ? [base(service), local(service)]
          : service.name === "mainnet-oracle" || service.name === "tides-mainnet"
            ? [base(service)]
            : [local(service)];
      expect(required.accepts, service.name).toMatchObject(expected);
    }
  });

  it("the v1 service lists its requirements in the body, with maxAmountRequired", async () => {
    const service = devnet.services.find((entry) => entry.x402Version === 1);
    if (!service) throw new Error("no v1 service");
    const response = await fetch(serviceUrl(service));
    expect(response.status).toBe(402);
    const body = (await response.json()) as { x402Version: number; accepts: Record<string, unknown>[] };
    expect(body.x402Version).toBe(1);
    expect(body.accepts[0]).toMatchObject({
      scheme: "exact",
      network: devnet.v1Network,
      maxAmountRequired: service.amount,
      asset: devnet.usdc,
      payTo: devnet.accounts.merchant.address,
      extra: { name: "USD Coin", version: "2" },
    });
  });

  it("prices premium-report above the app's default 1.00 USDC per-payment limit", () => {
    const premium = devnet.services.find((service) => service.name === "premium-report");
    expect(BigInt(premium?.amount ?? 0)).toBeGreaterThan(1_000_000n);
    const prices = devnet.services.filter((service) => !service.group).map((service) => service.price);
    expect(new Set(prices).size).toBe(prices.length);
  });
});

describe("paying every paid service with the official x402 client", () => {
  const paid = () => devnet.services.filter((service) => !service.offline);

  const payable = [
    "weather",
    "crypto-price",
    "news-headlines",
    "premium-report",
    "slow-analysis",
    "fx-rates",
    "keywords",
    "stock-quote",
    "archive",
    "air-quality",
    "tides",
    "guide-lisbon-food",
  ];
  it.each(payable)("pays %s", async (name) => {
    const service = paid().find((entry) => entry.name === name);
    if (!service) throw new Error(`no service ${name}`);
    const pay = officialPayingFetch(devnet.accounts.agent.privateKey as Hex);
    const payer = devnet.accounts.agent.address;
    const payee = devnet.accounts.merchant.address;
    const [payerBefore, payeeBefore] = await Promise.all([balanceOf(payer), balanceOf(payee)]);

    const response = await pay(serviceUrl(service), exampleInit(service));
    expect(response.status).toBe(200);
    const body = (await response.json()) as { demo?: boolean };
    expect(body.demo).toBe(true);

    const receiptHeader = response.headers.get(service.x402Version === 1 ? "x-payment-response" : "payment-response");
    const settlement = decodePaymentResponseHeader(receiptHeader ?? "");
    expect(settlement.success).toBe(true);
    const receipt = await chain.getTransactionReceipt({ hash: settlement.transaction as Hex });
    expect(receipt.status).toBe("success");

    const price = BigInt(service.amount ?? "0");
    expect(await balanceOf(payer)).toBe(payerBefore - price);
    expect(await balanceOf(payee)).toBe(payeeBefore + price);
  });

  it("every paid service has been paid (the list above is complete, the guide catalogue by one of its own, the metered ones in upto-local-world, the channel ones in batch-settlement-local-world, the failing listings in evidence-discovery)", () => {
    const kinds = paid().map((service) => service.group ?? service.name);
    const metered = paid()
      .filter((service) => service.scheme === "upto")
      .map((service) => service.name);
    const channels = paid()
      .filter((service) => service.scheme === "batch-settlement")
      .map((service) => service.name);
    expect(metered.sort()).toEqual(["overcharging-summary", "row-meter", "text-meter"]);
    expect(channels.sort()).toEqual(["deposit-trap", "greedy-ticks", "tick-feed", "word-lookup"]);
    const failing = paid()
      .filter((service) => service.failure !== undefined)
      .map((service) => service.name);
    expect(failing.sort()).toEqual(["tides-direct", "tides-express", "tides-mainnet", "tides-watch"]);
    expect([...new Set(kinds)].sort()).toEqual(
      [...payable.filter((name) => !name.startsWith("guide-")), "city-guides", "mainnet-oracle", ...metered, ...channels, ...failing].sort(),
    );
  });

  it("cannot pay the service that takes only another network, and nothing moves", async () => {
    const oracle = paid().find((service) => service.name === "mainnet-oracle");
    if (!oracle) throw new Error("no mainnet-oracle");
    const before = await balanceOf(devnet.accounts.agent.address);
    const pay = officialPayingFetch(devnet.accounts.agent.privateKey as Hex);
    await expect(pay(serviceUrl(oracle))).rejects.toThrow(/eip155:8453|network|support/i);
    expect(await balanceOf(devnet.accounts.agent.address)).toBe(before);
  });

  it.each(["weather", "fx-rates"])("refuses a replayed payment header for %s and moves no money", async (name) => {
    const service = devnet.services.find((entry) => entry.name === name);
    const headers = service && sentPaymentHeaders.get(service.url);
    if (!service || !headers) throw new Error(`no recorded payment for ${name}`);
    const before = await Promise.all([balanceOf(devnet.accounts.agent.address), balanceOf(devnet.accounts.merchant.address)]);

    const replay = await fetch(serviceUrl(service), { headers });
    expect(replay.status).toBe(402);
    expect(replay.headers.get("payment-response") ?? replay.headers.get("x-payment-response")).toBeNull();

    const after = await Promise.all([balanceOf(devnet.accounts.agent.address), balanceOf(devnet.accounts.merchant.address)]);
    expect(after).toEqual(before);

    // The token itself records the authorization as used (EIP-3009 authorizationState).
    const payment = JSON.parse(Buffer.from(Object.values(headers)[0] ?? "", "base64").toString("utf8")) as {
      payload: { authorization: { from: Address; nonce: Hex } };
    };
    const { from, nonce } = payment.payload.authorization;
    expect(
      await chain.readContract({ address: devnet.usdc as Address, abi: authorizationStateAbi, functionName: "authorizationState", args: [from, nonce] }),
    ).toBe(true);
  });

  it("refuses a paid request with a bad query before verifying, so nothing is spent", async () => {
    const weather = devnet.services.find((entry) => entry.name === "weather");
    const headers = weather && sentPaymentHeaders.get(weather.url);
    if (!weather || !headers) throw new Error("no recorded weather payment");
    const response = await fetch(weather.url, { headers });
    expect(response.status).toBe(400);
  });

  it("the unfunded wallet's payment is refused with nothing moved", async () => {
    const weather = devnet.services.find((entry) => entry.name === "weather");
    if (!weather) throw new Error("no weather");
    const pay = officialPayingFetch(devnet.accounts.unfunded.privateKey as Hex);
    const merchantBefore = await balanceOf(devnet.accounts.merchant.address);
    const response = await pay(serviceUrl(weather));
    expect(response.status).toBe(402);
    const required = decodePaymentRequiredHeader(response.headers.get("payment-required") ?? "");
    expect(required.error).toMatch(/insufficient/i);
    expect(await balanceOf(devnet.accounts.merchant.address)).toBe(merchantBefore);
  });
});

describe("discovery", () => {
  type ListResponse = {
    items: {
      resource: string;
      type: string;
      x402Version: number;
      accepts: Record<string, unknown>[];
      serviceName: string;
      tags: string[];
      description: string;
    }[];
    pagination: { limit: number; offset: number; total: number };
  };

  it("lists every service over two pages, offline one included, with its price", async () => {
    const items: ListResponse["items"] = [];
    for (const offset of [0, 100]) {
      const response = await fetch(`${devnet.facilitatorUrl}/discovery/resources?type=http&limit=100&offset=${offset}`);
      expect(response.status).toBe(200);
      const list = (await response.json()) as ListResponse;
      expect(Object.keys(list).sort()).toEqual(["items", "pagination", "x402Version"]);
      expect(list.pagination).toEqual({ limit: 100, offset, total: devnet.services.length });
      items.push(...list.items);
    }
    expect(devnet.services.length).toBeGreaterThan(100);
    expect(items).toHaveLength(devnet.services.length);
    for (const service of devnet.services) {
      const item = items.find((entry) => entry.resource === service.url);
      expect(item, service.name).toBeDefined();
      expect(item?.type).toBe("http");
      expect(item?.x402Version).toBe(service.x402Version);
      const accept = item?.accepts[0] ?? {};
      expect(accept.amount ?? accept.maxAmountRequired).toBe(service.amount);
    }
  });

  it("lists the v1 service by its outputSchema alone and the route-template service by its template", async () => {
    const response = await fetch(`${devnet.facilitatorUrl}/discovery/resources?type=http&limit=20`);
    const list = (await response.json()) as {
      items: (ListResponse["items"][number] & { extensions?: Record<string, { routeTemplate?: string; info?: { input?: Record<string, unknown> } }> })[];
    };
    const v1 = list.items.find((item) => item.x402Version === 1);
    expect(v1).toBeDefined();
    expect(v1).not.toHaveProperty("extensions");
    expect(v1?.accepts[0]?.outputSchema).toMatchObject({ input: { type: "http", method: "GET", queryParams: { base: { type: "string", required: true } } } });
    const stock = list.items.find((item) => item.resource.endsWith("/stocks/:ticker/quote"));
    expect(stock?.extensions?.bazaar).toMatchObject({
      routeTemplate: "/stocks/:ticker/quote",
      info: { input: { method: "GET", pathParams: { ticker: "ACME" } } },
    });
    const post = list.items.find((item) => item.resource.endsWith("/nlp/keywords"));
    expect(post?.extensions?.bazaar?.info?.input).toMatchObject({ method: "POST", bodyType: "json", body: { text: expect.any(String) } });
  });

  it("pages with limit and offset", async () => {
    const response = await fetch(`${devnet.facilitatorUrl}/discovery/resources?type=http&limit=2&offset=2`);
    const list = (await response.json()) as ListResponse;
    expect(list.items).toHaveLength(2);
    expect(list.pagination).toEqual({ limit: 2, offset: 2, total: devnet.services.length });
  });

  it.each([
    ["weather forecast for Lisbon", "weather"],
    ["bitcoin price", "crypto-price"],
    ["latest news headlines", "news-headlines"],
    ["in-depth research report", "premium-report"],
    ["currency exchange rates", "fx-rates"],
    ["sentiment", "slow-analysis"],
    ["extract keywords from a text", "keywords"],
    ["stock quote", "stock-quote"],
    ["air quality", "air-quality"],
    ["food guide lisbon", "guide-lisbon-food"],
    ["osaka transit", "guide-osaka-transit"],
  ])("search %j ranks %s first", async (query, expected) => {
    const response = await fetch(`${devnet.facilitatorUrl}/discovery/search?${new URLSearchParams({ query })}`);
    expect(response.status).toBe(200);
    const result = (await response.json()) as Record<string, unknown> & { resources: ListResponse["items"] };
    const expectedUrl = devnet.services.find((service) => service.name === expected)?.url;
    expect(result.resources[0]?.resource).toBe(expectedUrl);
    expect(result.resources[0]).toMatchObject({ type: "http", serviceName: expect.any(String), tags: expect.any(Array), lastUpdated: expect.any(String) });
    // The spec's fields and no others: a client that reads anything else fails here first.
    expect(Object.keys(result).sort()).toEqual(["pagination", "partialResults", "resources", "x402Version"]);
    for (const resource of result.resources) expect(resource).not.toHaveProperty("metadata");
  });

  it("pages a search with an opaque cursor until it answers null", async () => {
    const seen: string[] = [];
    let cursor: string | null = null;
    for (let page = 0; page < 10; page += 1) {
      const parameters = new URLSearchParams({ query: "weather price news report rates sentiment", limit: "2" });
      if (cursor) parameters.set("cursor", cursor);
      const response = await fetch(`${devnet.facilitatorUrl}/discovery/search?${parameters}`);
      const result = (await response.json()) as { resources: { resource: string }[]; pagination: { limit: number; cursor: string | null } };
      expect(result.resources.length).toBeLessThanOrEqual(2);
      seen.push(...result.resources.map((resource) => resource.resource));
      cursor = result.pagination.cursor;
      if (cursor === null) break;
    }
    expect(cursor).toBeNull();
    expect(seen.length).toBeGreaterThan(2);
    expect(new Set(seen).size).toBe(seen.length);
    const forged = await fetch(`${devnet.facilitatorUrl}/discovery/search?query=data&cursor=${encodeURIComponent("' OR 1=1")}`);
    expect(forged.status).toBe(400);
  });

  it("answers the official Bazaar client", async () => {
    const bazaar = withBazaar(new HTTPFacilitatorClient({ url: devnet.facilitatorUrl })).extensions.bazaar;
    const list = await bazaar.listResources({ type: "http" });
    expect(list.pagination.total).toBe(devnet.services.length);
    const search = await bazaar.search({ query: "weather" });
    expect(search.resources[0]?.resource).toBe(devnet.services.find((service) => service.name === "weather")?.url);
  });

  it("refuses a search without a query", async () => {
    const response = await fetch(`${devnet.facilitatorUrl}/discovery/search`);
    expect(response.status).toBe(400);
  });
});
