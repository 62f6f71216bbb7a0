/**
 * The agent against a world it did not write: a discovery server that answers only in the
 * bazaar spec's shapes, and paid services built from the x402 packages alone, in three
 * real-world shapes: a v2 POST with a JSON body, a v2 GET with a path parameter (listed by its
 * route template), and a v1 POST described only by its `outputSchema`. The model (the real
 * OpenAI provider against a scripted server) must be shown how to call each service, each
 * service must get exactly the request that was paid for, and a call missing what the service
 * declared required is refused before the service is asked anything. The chain is the judge of
 * what moved: each service has a payee nobody else pays.
 */
import { privateKeyToAccount } from "viem/accounts";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { ApprovalRequest } from "../../lib/stream";
import { encodePaymentSignatureHeader } from "../../lib/x402/payment-signature-header";
import { walletTypedDataOf } from "../../lib/x402/approval-typed-data";
import { userMessage, type ChatHarness, type ChatResult } from "../support/chat-harness";
import { lastToolResult, type FakeOpenAiServer, type ParsedChatCompletionRequest, type ScriptedReply } from "../support/fake-openai-server";
import { startForeignHarness, type ForeignHarness } from "../support/foreign-harness";
import { TRANSLATE_PRICE, type ForeignService, type ForeignWorld } from "../support/foreign-world";

let harness: ChatHarness;
let fake: FakeOpenAiServer;
let world: ForeignWorld | undefined;
let foreign: ForeignHarness | undefined;
let scenario: (request: ParsedChatCompletionRequest, turn: number) => ScriptedReply = () => ({ status: 500, error: "no scenario set" });
let firstCallOfTest = 0;

beforeAll(async () => {
  foreign = await startForeignHarness((request, index) => scenario(request, index - firstCallOfTest), "foreign");
  ({ harness, fake, world } = foreign);
});

afterAll(async () => {
  await foreign?.stop();
});

beforeEach(() => {
  firstCallOfTest = fake.requests.length;
  fake.problems.length = 0;
  world?.forget();
});

type Listing = { name: string; resource: string; price: string; x402Version: number; usage?: string };
type Call = { url: string; method: string; body?: Record<string, unknown> };

/**
 * Turn 0 searches with `query`; turn 1 calls `service`'s listing (as the model was shown it)
 * the way `callFor` says; turn 2 answers from the tool's result.
 */
function buy(query: string, service: ForeignService, callFor: (listing: Listing) => Call, answer: (result: Record<string, unknown>) => string) {
  const seen: { listing?: Listing; result?: Record<string, unknown> } = {};
  scenario = (request, turn) => {
    if (turn === 0) return { toolCalls: [{ name: "discover_services", arguments: { query } }] };
    if (turn === 1) {
      const found = lastToolResult(request)?.content as { services?: Listing[] } | undefined;
      seen.listing = found?.services?.find((listing) => listing.resource === service.resource);
      if (!seen.listing) throw new Error(`${service.resource} not found: ${JSON.stringify(found)}`);
      return { toolCalls: [{ name: "call_paid_service", arguments: callFor(seen.listing) }] };
    }
    seen.result = lastToolResult(request)?.content as Record<string, unknown>;
    return { text: answer(seen.result) };
  };
  return seen;
}

function buyTranslation(bodyFor: () => Record<string, unknown>, answer: (result: Record<string, unknown>) => string) {
  return buy("translate to French", world!.translate, (listing) => ({ url: listing.resource, method: "POST", body: bodyFor() }), answer);
}

const reportData = (result: Record<string, unknown>) => `Done: ${JSON.stringify((result.result as { data?: unknown } | undefined)?.data)}`;

const agentBalance = () => harness.usdcBalance(harness.devnet.accounts.agent.address as `0x${string}`);

/** The agent paid `service` its price, once, and nothing else moved between them. */
async function expectPaidOnce(service: ForeignService, agentBefore: bigint, result: ChatResult) {
  expect(result.finish).toMatchObject({ finishReason: "payment-complete" });
  expect(await agentBalance()).toBe(agentBefore - service.price);
  expect(await harness.usdcBalance(service.payTo)).toBe(service.price);
}

/** Refused before the service was asked anything: it saw no request, and its payee got nothing. */
async function expectRefusedUnasked(service: ForeignService, payeeBefore: bigint, result: ChatResult) {
  expect(service.requests).toEqual([]);
  expect(result.finish).toMatchObject({ finishReason: "stop", payments: [] });
  expect(await harness.usdcBalance(service.payTo)).toBe(payeeBefore);
}

describe("a spec-shaped world that is not ours", () => {
  it("finds the POST service by search, shows the model its method and body, pays with that body, and the chain shows the price", async () => {
    const agentBefore = await agentBalance();
    const seen = buyTranslation(() => ({ text: "Good night", to: "fr" }), reportData);
    const result = await harness.chat(userMessage("Translate 'Good night' into French"));
    expect(fake.problems).toEqual([]);
    expect(seen.listing).toMatchObject({ name: "Lingo Translate", price: "0.03", x402Version: 2 });
    expect(seen.listing?.usage).toBe(
      'POST JSON body {"text": string, required, e.g. Good morning: Text to translate, "to": string, required, e.g. fr: Target language code} example body {"text":"Good morning","to":"fr"}',
    );
    expect(seen.result).toMatchObject({ status: "paid", amountUsdc: "0.03", result: { data: { translation: "[fr] Good night", to: "fr" } } });
    expect(world!.translate.served).toEqual([{ method: "POST", path: "/v1/translate", body: { text: "Good night", to: "fr" } }]);
    await expectPaidOnce(world!.translate, agentBefore, result);
  });

  it("refuses a call without a required body field before the service is asked anything; nothing is paid", async () => {
    const payeeBefore = await harness.usdcBalance(world!.translate.payTo);
    const seen = buyTranslation(
      () => ({ text: "Good night" }),
      () => "I need the target language.",
    );
    const result = await harness.chat(userMessage("Translate 'Good night'"));
    expect(seen.result).toMatchObject({ status: "refused", message: expect.stringContaining('missing body field "to"') });
    await expectRefusedUnasked(world!.translate, payeeBefore, result);
  });

  it("finds the path-parameter service listed by its route template, shows the model the path parameter, pays for the filled-in path, and the chain shows the price", async () => {
    const quote = world!.quote;
    expect(quote.resource).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/v1\/stocks\/:symbol\/quote$/);
    const agentBefore = await agentBalance();
    const seen = buy("stock quote", quote, (listing) => ({ url: `${listing.resource.replace(":symbol", "NVDA")}?currency=EUR`, method: "GET" }), reportData);
    const result = await harness.chat(userMessage("What is NVDA trading at, in euros?"));
    expect(fake.problems).toEqual([]);
    expect(seen.listing).toMatchObject({ name: "Ticker Quotes", price: "0.02", x402Version: 2 });
    expect(seen.listing?.usage).toBe(
      "GET /v1/stocks/:symbol/quote path symbol=<string, required, e.g. ACME: Ticker symbol> ?currency=<string, e.g. USD: Currency of the price, USD or EUR>",
    );
    expect(seen.result).toMatchObject({ status: "paid", amountUsdc: "0.02", result: { data: { symbol: "NVDA", price: 108, currency: "EUR" } } });
    const path = "/v1/stocks/NVDA/quote?currency=EUR";
    expect(quote.requests).toEqual([
      { method: "GET", path, paid: false },
      { method: "GET", path, paid: true },
    ]);
    expect(quote.served).toEqual([{ method: "GET", path }]);
    await expectPaidOnce(quote, agentBefore, result);
  });

  it("refuses a call to the path-parameter service with its path parameter left unfilled before the service is asked anything; nothing is paid", async () => {
    const payeeBefore = await harness.usdcBalance(world!.quote.payTo);
    const seen = buy(
      "stock quote",
      world!.quote,
      (listing) => ({ url: listing.resource, method: "GET" }),
      () => "Which symbol?",
    );
    const result = await harness.chat(userMessage("Get me a stock quote"));
    expect(seen.result).toMatchObject({ status: "refused", message: expect.stringContaining("path parameter not filled in: :symbol") });
    await expectRefusedUnasked(world!.quote, payeeBefore, result);
  });

  it("finds the v1 service described only by its outputSchema, shows the model its body fields, pays in v1 for that body, and the chain shows the price", async () => {
    const convert = world!.convert;
    const agentBefore = await agentBalance();
    const body = { amount: 100, from: "USD", to: "GBP" };
    const seen = buy("convert currency", convert, (listing) => ({ url: listing.resource, method: "POST", body }), reportData);
    const result = await harness.chat(userMessage("Convert 100 USD to GBP"));
    expect(fake.problems).toEqual([]);
    expect(seen.listing).toMatchObject({ price: "0.015", x402Version: 1 });
    expect(seen.listing?.usage).toBe(
      'POST JSON body {"amount": number, required: Amount to convert, "from": string, required: Currency code to convert from, "to": string, required: Currency code to convert to}',
    );
    expect(seen.result).toMatchObject({ status: "paid", amountUsdc: "0.015", result: { data: { amount: 80, currency: "GBP" } } });
    expect(convert.requests).toEqual([
      { method: "POST", path: "/v1/convert", paid: false },
      { method: "POST", path: "/v1/convert", paid: true },
    ]);
    expect(convert.served).toEqual([{ method: "POST", path: "/v1/convert", body }]);
    await expectPaidOnce(convert, agentBefore, result);
  });

  it("refuses a call to the v1 service without a required body field before the service is asked anything; nothing is paid", async () => {
    const payeeBefore = await harness.usdcBalance(world!.convert.payTo);
    const seen = buy(
      "convert currency",
      world!.convert,
      (listing) => ({ url: listing.resource, method: "POST", body: { amount: 100, from: "USD" } }),
      () => "Into which currency?",
    );
    const result = await harness.chat(userMessage("Convert 100 USD"));
    expect(seen.result).toMatchObject({ status: "refused", message: expect.stringContaining('missing body field "to"') });
    await expectRefusedUnasked(world!.convert, payeeBefore, result);
  });

  it("a user's approval of a POST pays for exactly the quoted body; the same signature with another body is 402 and moves nothing", async () => {
    const user = harness.devnet.accounts.user.address as `0x${string}`;
    const key = harness.devnet.accounts.user.privateKey as `0x${string}`;
    const question = { ...userMessage("Translate 'Thank you' into French"), walletAddress: user };
    buyTranslation(
      () => ({ text: "Thank you", to: "fr" }),
      (result) => (result.status === "awaiting-approval" ? "Please approve the payment in your wallet." : `Done: ${JSON.stringify(result)}`),
    );
    const first = await harness.chat(question);
    const approval = first.payments.find((payment) => payment.status === "awaiting-approval")?.approval as ApprovalRequest | undefined;
    expect(approval).toMatchObject({ method: "POST", resource: world?.translate.resource, amount: "0.03", body: '{"text":"Thank you","to":"fr"}' });
    const signature = await privateKeyToAccount(key).signTypedData(walletTypedDataOf(approval!));
    const [userBefore, payeeBefore] = await Promise.all([harness.usdcBalance(user), harness.usdcBalance(world!.translate.payTo)]);
    // Request 1 asked the service for its price (one unpaid POST); from here on, count afresh.
    expect(world?.translate.requests).toEqual([{ method: "POST", path: "/v1/translate", paid: false }]);
    world!.forget();

    // Another body under the same signature: refused before anything is sent.
    const tampered = encodePaymentSignatureHeader({ ...approval!, body: '{"text":"Thank you","to":"de"}' }, signature);
    const refused = await harness.chat(question, { headers: { "PAYMENT-SIGNATURE": tampered } });
    expect(refused.response.status).toBe(402);
    expect(world?.translate.requests).toEqual([]);

    scenario = () => ({ text: "Paid and translated." });
    firstCallOfTest = fake.requests.length;
    const second = await harness.chat(question, { headers: { "PAYMENT-SIGNATURE": encodePaymentSignatureHeader(approval!, signature) } });
    expect(second.response.status).toBe(200);
    expect(second.finish).toMatchObject({ finishReason: "payment-complete" });
    expect(world?.translate.served).toEqual([{ method: "POST", path: "/v1/translate", body: { text: "Thank you", to: "fr" } }]);
    expect(await harness.usdcBalance(user)).toBe(userBefore - TRANSLATE_PRICE);
    expect(await harness.usdcBalance(world!.translate.payTo)).toBe(payeeBefore + TRANSLATE_PRICE);
  });
});
