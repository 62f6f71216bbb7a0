/**
 * The local world against the official x402 packages, service by service.
 *
 * 1. Every message it sends passes the packages' schemas (devnet/conformance): every service's
 *    402 (called unpaid, as its example says), every page of the discovery list at two page
 *    sizes, every page of several searches, the facilitator's `/supported` as the official
 *    facilitator client reads it, and (in 2.) every 402 and every `PAYMENT-RESPONSE` the
 *    official client is sent while paying.
 * 2. The official client (`@x402/fetch`'s `wrapFetchWithPayment`, `@x402/evm`'s exact scheme
 *    for v2 and v1 and its upto scheme, `@x402/extensions`' sign-in-with-x client) pays every
 *    payable service, each called as its example says: an exact one at exactly the listed
 *    price, a metered (upto) one what its settlement says, at most its ceiling and, for an honest
 *    one, what its answer reports (the chain's Transfer log of each settlement, and the sum
 *    over all; tests/integration/upto-local-world.test.ts goes into upto in depth). The
 *    service that takes only another network is refused before anything is signed, the
 *    offline one cannot be reached, and a used payment re-sent (v2 `PAYMENT-SIGNATURE`, v1
 *    `X-PAYMENT`, and by the official client itself) is refused: nothing moves.
 */
import { decodePaymentRequiredHeader, decodePaymentResponseHeader } from "@x402/core/http";
import { HTTPFacilitatorClient } from "@x402/core/server";
import type { Network } from "@x402/core/types";
import { ExactEvmScheme } from "@x402/evm/exact/client";
import { ExactEvmSchemeV1 } from "@x402/evm/exact/v1/client";
import { UptoEvmScheme } from "@x402/evm/upto/client";
import { createSIWxClientExtension } from "@x402/extensions/sign-in-with-x";
import { wrapFetchWithPayment, x402Client } from "@x402/fetch";
import { createPublicClient, erc20Abi, http, parseEventLogs, type Address, type Hex } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startDevnet, type Devnet } from "../../devnet";
import { listPageProblems, paymentRequiredProblems, paymentResponseProblems, searchPageProblems } from "../../devnet/conformance/x402-conformance";

type Service = Devnet["services"][number];

/** Payments in flight at once: the facilitator's nonce manager serializes its transactions. */
const CONCURRENCY = 6;
const FOREIGN_NETWORK = "eip155:8453";

let devnet: Devnet;
let chain: ReturnType<typeof createPublicClient>;

beforeAll(async () => {
  devnet = await startDevnet({ slowDelayMs: 100, settleTimeoutMs: 10_000 });
  chain = createPublicClient({ transport: http(devnet.rpcUrl) });
});

afterAll(async () => {
  await devnet?.stop();
});

const named = (name: string): Service => {
  const found = devnet.services.find((service) => service.name === name);
  if (!found) throw new Error(`no service ${name}`);
  return found;
};

/** The request a service's example describes: its URL (query or path filled in) and any JSON body. */
function exampleRequest(service: Service): [string, RequestInit] {
  const example = service.example;
  if (!example) throw new Error(`${service.name} has no example`);
  const body = example.body === undefined ? {} : { body: JSON.stringify(example.body), headers: { "content-type": "application/json" } };
  return [example.url, { method: service.method, ...body }];
}

async function inPool<Item>(items: readonly Item[], limit: number, work: (item: Item) => Promise<void>): Promise<void> {
  const queue = [...items];
  await Promise.all(
    Array.from({ length: Math.min(limit, queue.length) }, async () => {
      for (let item = queue.shift(); item !== undefined; item = queue.shift()) await work(item);
    }),
  );
}

const getJson = async (path: string) => {
  const response = await fetch(new URL(path, devnet.facilitatorUrl));
  expect(response.status, path).toBe(200);
  return (await response.json()) as Record<string, unknown>;
};

/** The x402 payment requirements of a 402: the PAYMENT-REQUIRED header (v2), else the JSON body (v1). */
async function paymentRequiredOf(response: Response): Promise<Record<string, unknown>> {
  const header = response.headers.get("payment-required");
  return header ? decodePaymentRequiredHeader(header) : ((await response.clone().json()) as Record<string, unknown>);
}

const named402Problems = async (label: string, response: Response) =>
  (await paymentRequiredProblems(await paymentRequiredOf(response))).map((problem) => `${label}: ${problem}`);

describe("every message of the local world passes the official x402 schemas", () => {
  it("every service's 402, every page of the discovery list and of search, and /supported", async () => {
    const problems: string[] = [];
    const counted = { paymentRequired: 0, listPages: 0, searchPages: 0, listingsChecked: 0 };

    // /supported, read by @x402/core's own facilitator client (which parses it with the package's schema).
    const supported = await new HTTPFacilitatorClient({ url: devnet.facilitatorUrl }).getSupported();
    expect(supported.kinds).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ x402Version: 2, scheme: "exact", network: devnet.network }),
        expect.objectContaining({ x402Version: 1, scheme: "exact", network: devnet.v1Network }),
      ]),
    );

    await inPool(devnet.services, 8, async (service) => {
      const [url, init] = exampleRequest(service);
      if (service.offline) {
        await expect(fetch(url, init), service.name).rejects.toThrow();
        return;
      }
      const response = await fetch(url, init);
      // The failing listing that answers 500 before any 402 (devnet/README.md, "Listings that fail").
      if (service.failure === "error-before-payment") {
        expect(response.status, service.name).toBe(500);
        return;
      }
      expect(response.status, service.name).toBe(402);
      const required = await paymentRequiredOf(response);
      expect(required.x402Version, service.name).toBe(service.x402Version);
      problems.push(...(await named402Problems(service.name, response)));
      counted.paymentRequired += 1;
    });

    // Every page of the list, at the largest page size and at an odd small one.
    for (const limit of [100, 9]) {
      const resources: string[] = [];
      for (let offset = 0, total = Infinity; offset < total;) {
        const page = await getJson(`/discovery/resources?limit=${limit}&offset=${offset}`);
        problems.push(...listPageProblems(page).map((problem) => `list limit=${limit} offset=${offset}: ${problem}`));
        const { items, pagination } = page as { items: { resource: string }[]; pagination: { total: number; offset: number } };
        expect(pagination.offset).toBe(offset);
        expect(items.length).toBeGreaterThan(0);
        resources.push(...items.map((item) => item.resource));
        counted.listPages += 1;
        counted.listingsChecked += items.length;
        total = pagination.total;
        offset += items.length;
      }
      // The HTTP services, and each listed MCP tool at its server's endpoint (several tools share one).
      const mcpListed = (devnet.mcpTools ?? []).filter((tool) => tool.listed).map((tool) => tool.url);
      expect(resources.sort(), `list limit=${limit}`).toEqual([...devnet.services.map((service) => service.url), ...mcpListed].sort());
    }

    // Every page of several searches, one of which matches every listing, one nothing.
    const everything = new Set<string>();
    for (const query of ["devnet", "city guide lisbon", "weather", "stock quote", "zzzz nothing matches"]) {
      let cursor: string | null = null;
      do {
        const page = await getJson(`/discovery/search?${new URLSearchParams({ query, limit: "10", ...(cursor ? { cursor } : {}) })}`);
        problems.push(...searchPageProblems(page).map((problem) => `search "${query}" cursor=${cursor}: ${problem}`));
        const { resources, pagination } = page as { resources: { resource: string }[]; pagination: { cursor: string | null } };
        if (query === "devnet") for (const item of resources) everything.add(item.resource);
        counted.searchPages += 1;
        counted.listingsChecked += resources.length;
        cursor = pagination.cursor;
      } while (cursor);
    }
    expect(everything.size, 'search "devnet" pages through every listing').toBe(devnet.services.length);

    expect(problems).toEqual([]);
    // Every service (two offline, one answering 500 before its 402) and the listed MCP tools, the list at 100 and at 9 a page; search "devnet" 10 a page.
    const listings = devnet.services.length + (devnet.mcpTools ?? []).filter((tool) => tool.listed).length;
    const answering402 = devnet.services.filter((service) => !service.offline && service.failure !== "error-before-payment").length;
    expect(counted).toMatchObject({ paymentRequired: answering402, listPages: Math.ceil(listings / 100) + Math.ceil(listings / 9) });
    expect(counted.searchPages).toBeGreaterThanOrEqual(Math.ceil(devnet.services.length / 10) + 4);
    console.log(`official-x402: checked ${JSON.stringify(counted)}`);
  });
});

/**
 * What a metered service settled: at most its ceiling, and for an honest one exactly the
 * `charged` its answer reports (the dishonest one takes its whole ceiling).
 */
function meteredAmount(service: Service, body: Record<string, unknown>, settled: string | undefined): bigint {
  const amount = BigInt(settled ?? "-1");
  const charged = BigInt((body.metering as { charged?: string } | undefined)?.charged ?? "-1");
  expect(amount, service.name).toBeGreaterThanOrEqual(0n);
  expect(amount, service.name).toBeLessThanOrEqual(BigInt(service.amount ?? ""));
  expect(amount, service.name).toBe(service.name === "overcharging-summary" ? BigInt(service.amount ?? "") : charged);
  return amount;
}

describe("the official client pays every payable service of the local world", () => {
  const payer = () => privateKeyToAccount(devnet.accounts.user.privateKey as Hex);
  const merchant = () => devnet.accounts.merchant.address as Address;
  const usdcBalance = (address: Address) => chain.readContract({ address: devnet.usdc as Address, abi: erc20Abi, functionName: "balanceOf", args: [address] });
  const balances = () => Promise.all([usdcBalance(payer().address), usdcBalance(merchant())]);

  /** What an integrator writes: v2 and v1 exact EVM, v2 upto, sign-in-with-x, the local USDC allowed by address. */
  function officialClient(): x402Client {
    const account = payer();
    const network = devnet.network as Network;
    const v1Network = devnet.v1Network as Network;
    return new x402Client()
      .register(network, new ExactEvmScheme(account))
      .register(network, new UptoEvmScheme(account))
      .registerV1(v1Network, new ExactEvmSchemeV1(account))
      .registerExtension(createSIWxClientExtension({ signers: [account] }))
      .setSpendControls({
        allowedAssets: [
          { network, asset: devnet.usdc },
          { network: v1Network, asset: devnet.usdc },
        ],
      });
  }

  it(
    "each at its listed price (metered: what it used, at most its ceiling), with a 200 and its data; the foreign-only one refused; a replayed payment refused; nothing else moves",
    { timeout: 180_000 },
    async () => {
      const startedAt = performance.now();
      const client = officialClient();
      // The channel services (batch-settlement) are paid by the official channel client in batch-settlement-local-world.
      // The failing listings are left to tests/integration/evidence-discovery.test.ts.
      const payable = devnet.services.filter(
        (service) => !service.offline && service.network !== FOREIGN_NETWORK && service.scheme !== "batch-settlement" && service.failure === undefined,
      );
      const problems: string[] = [];
      const paid = new Map<string, { transaction: Hex; paymentHeader: string; amount: bigint }>();
      const before = await balances();

      // Each service's outcome is collected, so a failure names every service it hits, not the first.
      const failures: string[] = [];
      await inPool(payable, CONCURRENCY, (service) =>
        payOne(service).catch((error: unknown) => void failures.push(`${service.name}: ${error instanceof Error ? error.message : String(error)}`)),
      );

      async function payOne(service: Service): Promise<void> {
        // The official client over a fetch that keeps what it sends and checks every 402 it is sent.
        const sent: string[] = [];
        const recording = async (input: RequestInfo | URL, init?: RequestInit) => {
          const request = new Request(input, init);
          const paymentHeader = request.headers.get("payment-signature") ?? request.headers.get("x-payment");
          if (paymentHeader) sent.push(paymentHeader);
          const response = await fetch(request);
          if (response.status === 402) problems.push(...(await named402Problems(`${service.name} (402 to the client)`, response)));
          return response;
        };
        const response = await wrapFetchWithPayment(recording, client)(...exampleRequest(service));
        if (response.status !== 200) {
          const refusal = response.status === 402 ? (await paymentRequiredOf(response)).error : await response.text();
          throw new Error(`HTTP ${response.status}: ${String(refusal)}`);
        }
        const body = (await response.json()) as Record<string, unknown>;
        expect(body, service.name).toMatchObject({ demo: true });
        expect(Object.keys(body).length, service.name).toBeGreaterThan(2);

        const header = response.headers.get(service.x402Version === 2 ? "payment-response" : "x-payment-response");
        expect(header, service.name).toBeTruthy();
        const settlement = decodePaymentResponseHeader(header ?? "");
        problems.push(
          ...(await paymentResponseProblems(settlement, { x402Version: service.x402Version, payee: merchant() })).map(
            (problem) => `${service.name} (PAYMENT-RESPONSE): ${problem}`,
          ),
        );
        expect(settlement).toMatchObject({ success: true, payer: payer().address });

        // The chain: this settlement moved exactly the listed price (metered: the settled amount), from the payer to the payee.
        const amount = service.scheme === "upto" ? meteredAmount(service, body, settlement.amount) : BigInt(service.amount ?? "");
        const receipt = await chain.getTransactionReceipt({ hash: settlement.transaction as Hex });
        const transfers = parseEventLogs({ abi: erc20Abi, eventName: "Transfer", logs: receipt.logs }).filter(
          (log) => log.address.toLowerCase() === devnet.usdc.toLowerCase(),
        );
        expect(
          transfers.map((log) => [log.args.from, log.args.to, log.args.value]),
          service.name,
        ).toEqual([[payer().address, merchant(), amount]]);
        expect(sent, `${service.name}: one payment sent`).toHaveLength(1);
        paid.set(service.name, { transaction: settlement.transaction as Hex, paymentHeader: sent[0] ?? "", amount });
      }
      const paymentsMs = Math.round(performance.now() - startedAt);

      expect(failures, `paid ${paid.size} of ${payable.length}`).toEqual([]);
      expect(problems).toEqual([]);
      expect([...paid.keys()].sort()).toEqual(payable.map((service) => service.name).sort());
      expect(new Set([...paid.values()].map((entry) => entry.transaction)).size).toBe(payable.length);
      const total = [...paid.values()].reduce((sum, entry) => sum + entry.amount, 0n);
      const afterPaying = await balances();
      expect(afterPaying).toEqual([before[0] - total, before[1] + total]);

      // Sign-in-with-x: the wallet that paid for the document gets it again by signing in, unpaid.
      const archive = named("archive");
      const again = await wrapFetchWithPayment(fetch, client)(...exampleRequest(archive));
      expect(again.status).toBe(200);
      expect(again.headers.get("payment-response")).toBeNull();

      // The service that takes only another network: refused before anything is signed.
      const oracle = named("mainnet-oracle");
      const unpaid = await fetch(...exampleRequest(oracle));
      expect(((await paymentRequiredOf(unpaid)).accepts as { network: string }[]).map((option) => option.network)).toEqual([FOREIGN_NETWORK]);
      await expect(wrapFetchWithPayment(fetch, client)(...exampleRequest(oracle))).rejects.toThrow(
        /Failed to create payment payload: No network\/scheme registered/,
      );
      // The listed service whose server is down: nothing answers.
      await expect(wrapFetchWithPayment(fetch, client)(...exampleRequest(named("translate")))).rejects.toThrow();

      // A used payment re-sent, exactly as the official client sent it: refused.
      const weather = named("weather");
      const [weatherUrl, weatherInit] = exampleRequest(weather);
      const replayed = await fetch(weatherUrl, { ...weatherInit, headers: { "PAYMENT-SIGNATURE": paid.get("weather")?.paymentHeader ?? "" } });
      expect(replayed.status).toBe(402);
      expect(await named402Problems("weather replay", replayed)).toEqual([]);
      expect((await paymentRequiredOf(replayed)).error).toMatch(/nonce|used|authorization/i);
      // The official client itself never sends a payment twice: with the used header on, it stops.
      await expect(
        wrapFetchWithPayment(fetch, client)(weatherUrl, { ...weatherInit, headers: { "PAYMENT-SIGNATURE": paid.get("weather")?.paymentHeader ?? "" } }),
      ).rejects.toThrow("Payment already attempted");
      // The same for the v1 service and its X-PAYMENT header.
      const fx = named("fx-rates");
      const [fxUrl, fxInit] = exampleRequest(fx);
      const replayedV1 = await fetch(fxUrl, { ...fxInit, headers: { "X-PAYMENT": paid.get("fx-rates")?.paymentHeader ?? "" } });
      expect(replayedV1.status).toBe(402);
      expect(await named402Problems("fx-rates replay", replayedV1)).toEqual([]);

      expect(await balances(), "nothing moved after the payments").toEqual(afterPaying);
      console.log(`official-x402: paid ${paid.size} of ${payable.length} payable (${devnet.services.length} listed) in ${paymentsMs} ms, ${total} base units`);
    },
  );
});
