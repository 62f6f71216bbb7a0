/**
 * The offline demo model against the local world's real-world-shaped services: a POST service
 * with a JSON body, a route template with a path parameter, a 402 that offers another network
 * first, a v1 service described only by its outputSchema, a listing nothing here can pay, and a
 * catalogue of more than a hundred entries. The demo model has no code that names any of them:
 * it finds each by search and calls it from the service's own declared example. The chain is
 * the judge of what was paid.
 */
import { parseUnits } from "viem";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { findSequenceViolations } from "../../lib/stream";
import { createDiscoveryClient } from "../../lib/x402/discovery-client";
import { startChatHarness, userMessage, type ChatHarness, type ChatResult } from "../support/chat-harness";

let harness: ChatHarness;

beforeAll(async () => {
  harness = await startChatHarness();
});

afterAll(async () => {
  await harness?.stop();
});

function service(name: string) {
  const found = harness.devnet.services.find((candidate) => candidate.name === name);
  if (!found) throw new Error(`no service ${name}`);
  return found;
}

type DiscoveredEntry = { name: string; resource: string; usage?: string; network?: string };

function discovered(result: ChatResult): DiscoveredEntry[] {
  const event = result.payments.find((payment) => payment.id.startsWith("disc_") && payment.status === "discovered") as
    { services?: DiscoveredEntry[] } | undefined;
  return event?.services ?? [];
}

/** Asks for a purchase and checks it was paid exactly once, at the listed price, to the merchant. */
async function buys(prompt: string, name: string): Promise<ChatResult> {
  const agent = harness.devnet.accounts.agent.address as `0x${string}`;
  const merchant = harness.devnet.accounts.merchant.address as `0x${string}`;
  const price = parseUnits(service(name).price, 6);
  const before = await Promise.all([harness.usdcBalance(agent), harness.usdcBalance(merchant)]);
  const result = await harness.chat(userMessage(prompt));
  expect(result.response.status).toBe(200);
  expect(findSequenceViolations(result.events)).toEqual([]);
  expect(result.errors).toEqual([]);
  expect(result.finish).toMatchObject({ finishReason: "payment-complete" });
  expect(result.finish?.payments).toHaveLength(1);
  expect(result.finish?.payments[0]).toMatchObject({ amount: service(name).price });
  expect(await Promise.all([harness.usdcBalance(agent), harness.usdcBalance(merchant)])).toEqual([before[0]! - price, before[1]! + price]);
  return result;
}

describe("the demo model buys from real-world-shaped local services", () => {
  it("a POST service: found by search, shown its method and JSON body, paid with the example body", async () => {
    const result = await buys("Use the Devnet Keyword Extractor", "keywords");
    const listing = discovered(result).find((entry) => entry.resource === service("keywords").url);
    expect(listing?.usage).toMatch(/^POST .*JSON body \{"text": string, required/);
    // The answer is the keywords of the example text: the body reached the service.
    expect(result.text).toMatch(/solar/i);
  });

  it("a route template: the listing keeps `:ticker`, the call fills it in from the example", async () => {
    const result = await buys("Buy a stock quote from Devnet Stock Quotes", "stock-quote");
    const listing = discovered(result).find((entry) => entry.resource === service("stock-quote").url);
    expect(listing?.resource).toMatch(/\/stocks\/:ticker\/quote$/);
    expect(listing?.usage).toMatch(/ticker=<string, required/);
    expect(result.text).toMatch(/ACME/);
  });

  it("a 402 offering another network first: the local USDC option is the one paid", async () => {
    const result = await buys("Use the Devnet Air Quality service", "air-quality");
    const quoted = result.payments.find((payment) => payment.status === "quoted") as { network?: string } | undefined;
    expect(quoted?.network).toBe(harness.devnet.network);
  });

  it("a v1 service described only by its outputSchema: its usage comes from there, and it is paid", async () => {
    const result = await buys("What are the exchange rates for EUR?", "fx-rates");
    const listing = discovered(result).find((entry) => entry.resource === service("fx-rates").url);
    expect(listing?.usage).toMatch(/^GET \?base=<string, required/);
  });

  it("one guide out of a catalogue of more than a hundred, found by search", async () => {
    expect(harness.devnet.services.length).toBeGreaterThan(100);
    await buys("Buy the food guide for Lisbon", "guide-lisbon-food");
  });
});

describe("discovery of the whole local catalogue", () => {
  const client = () =>
    createDiscoveryClient({
      now: Date.now,
      facilitatorUrl: harness.devnet.facilitatorUrl,
      network: { networkNames: [harness.devnet.network, harness.devnet.v1Network], usdc: harness.devnet.usdc as `0x${string}` },
      fetch: (input, init) => fetch(input, init),
    });

  it("reads every page of the list and leaves out only the listings it cannot pay: another network's (the channel services are listed)", async () => {
    const { listings } = await client().find();
    const unpayable = harness.devnet.services.filter((entry) => entry.network === "eip155:8453").map((entry) => entry.url);
    expect(unpayable).toHaveLength(1);
    expect(harness.devnet.services.filter((entry) => entry.scheme === "batch-settlement")).toHaveLength(4);
    expect(listings.map((listing) => listing.resource).sort()).toEqual(
      harness.devnet.services
        .map((entry) => entry.url)
        .filter((url) => !unpayable.includes(url))
        .sort(),
    );
  });

  it("prices the service that offers another network first by its local option", async () => {
    const [first] = (await client().find("air quality")).listings;
    expect(first).toMatchObject({ resource: service("air-quality").url, network: harness.devnet.network, amount: 12_000n });
  });

  it("never offers the unpayable listing, even to a search that names it", async () => {
    const found = (await client().find("mainnet-only oracle")).listings;
    expect(found.map((listing) => listing.resource)).not.toContain(service("mainnet-oracle").url);
  });
});
