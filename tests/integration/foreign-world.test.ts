/**
 * The agent against a world it did not write: a discovery server that answers only in the
 * bazaar spec's shapes, and a paid POST service declared with the bazaar extension (method,
 * JSON body with schema and example), built from @x402/core and @x402/extensions alone. The
 * model (the real OpenAI provider against a scripted server) must see how to call the service,
 * and the service must get exactly the body that was paid for. The chain is the judge of what
 * moved.
 */
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { createBaseModel } from "../../lib/agent/model/create-chat-model";
import type { ApprovalRequest } from "../../lib/stream";
import { encodePaymentSignatureHeader } from "../../lib/x402/payment-signature-header";
import { toViemTypedData } from "../../lib/x402/transfer-authorization";
import { startChatHarness, userMessage, type ChatHarness } from "../support/chat-harness";
import { lastToolResult, startFakeOpenAiServer, type FakeOpenAiServer, type ParsedChatCompletionRequest, type ScriptedReply } from "../support/fake-openai-server";
import { startForeignWorld, TRANSLATE_PRICE, type ForeignWorld } from "../support/foreign-world";

let harness: ChatHarness;
let fake: FakeOpenAiServer;
let world: ForeignWorld | undefined;
// A payee nobody else pays, so its balance is exactly what this file paid it.
const payTo = privateKeyToAccount(generatePrivateKey()).address;
let scenario: (request: ParsedChatCompletionRequest, turn: number) => ScriptedReply = () => ({ status: 500, error: "no scenario set" });
let firstCallOfTest = 0;

beforeAll(async () => {
  fake = await startFakeOpenAiServer((request, index) => scenario(request, index - firstCallOfTest));
  try {
    harness = await startChatHarness({
      baseModel: createBaseModel({ apiKey: "test-key", baseUrl: fake.url, modelId: "gpt-test" }),
      network: async (devnet) => {
        world = await startForeignWorld(devnet, payTo);
        return { facilitatorUrl: world.bazaarUrl, outboundAllowlist: [new URL(world.bazaarUrl).host, new URL(world.translateUrl).host] };
      },
    });
  } catch (error) {
    await world?.stop();
    await fake.stop();
    throw error;
  }
});

afterAll(async () => {
  await harness?.stop();
  await world?.stop();
  await fake?.stop();
});

beforeEach(() => {
  firstCallOfTest = fake.requests.length;
  fake.problems.length = 0;
  if (world) {
    world.paidBodies.length = 0;
    world.requests.length = 0;
  }
});

type Listing = { name: string; resource: string; price: string; usage?: string };

/** Turn 0 searches; turn 1 calls the first service found with the body `bodyFor` gives. */
function buyTranslation(bodyFor: (listing: Listing) => Record<string, unknown>, answer: (result: Record<string, unknown>) => string) {
  const seen: { listing?: Listing; result?: Record<string, unknown> } = {};
  scenario = (request, turn) => {
    if (turn === 0) return { toolCalls: [{ name: "discover_services", arguments: { query: "translate to French" } }] };
    if (turn === 1) {
      const found = lastToolResult(request)?.content as { services?: Listing[] } | undefined;
      seen.listing = found?.services?.[0];
      if (!seen.listing) throw new Error(`nothing found: ${JSON.stringify(found)}`);
      return { toolCalls: [{ name: "call_paid_service", arguments: { url: seen.listing.resource, method: "POST", body: bodyFor(seen.listing) } }] };
    }
    seen.result = lastToolResult(request)?.content as Record<string, unknown>;
    return { text: answer(seen.result) };
  };
  return seen;
}

describe("a spec-shaped world that is not ours", () => {
  it("finds the POST service by search, shows the model its method and body, pays with that body, and the chain shows the price", async () => {
    const agent = harness.devnet.accounts.agent.address as `0x${string}`;
    const agentBefore = await harness.usdcBalance(agent);
    const seen = buyTranslation(
      () => ({ text: "Good night", to: "fr" }),
      (result) => `Done: ${JSON.stringify((result.result as { data?: unknown } | undefined)?.data)}`,
    );
    const result = await harness.chat(userMessage("Translate 'Good night' into French"));
    expect(fake.problems).toEqual([]);
    expect(seen.listing).toMatchObject({ name: "Lingo Translate", price: "0.03" });
    expect(seen.listing?.usage).toBe(
      'POST JSON body {"text": string, required, e.g. Good morning: Text to translate, "to": string, required, e.g. fr: Target language code} example body {"text":"Good morning","to":"fr"}',
    );
    expect(seen.result).toMatchObject({ status: "paid", amountUsdc: "0.03", result: { data: { translation: "[fr] Good night", to: "fr" } } });
    expect(world?.paidBodies).toEqual([{ text: "Good night", to: "fr" }]);
    expect(result.finish).toMatchObject({ finishReason: "payment-complete" });
    expect(await harness.usdcBalance(agent)).toBe(agentBefore - TRANSLATE_PRICE);
    expect(await harness.usdcBalance(payTo)).toBe(TRANSLATE_PRICE);
  });

  it("refuses a call without a required body field before the service is asked anything; nothing is paid", async () => {
    const payeeBefore = await harness.usdcBalance(payTo);
    const seen = buyTranslation(
      () => ({ text: "Good night" }),
      () => "I need the target language.",
    );
    const result = await harness.chat(userMessage("Translate 'Good night'"));
    expect(seen.result).toMatchObject({ status: "refused", message: expect.stringContaining('missing body field "to"') });
    expect(world?.requests).toEqual([]);
    expect(result.finish).toMatchObject({ finishReason: "stop", payments: [] });
    expect(await harness.usdcBalance(payTo)).toBe(payeeBefore);
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
    expect(approval).toMatchObject({ method: "POST", resource: world?.translateUrl, amount: "0.03", body: '{"text":"Thank you","to":"fr"}' });
    const signature = await privateKeyToAccount(key).signTypedData(toViemTypedData(approval!.typedData));
    const [userBefore, payeeBefore] = await Promise.all([harness.usdcBalance(user), harness.usdcBalance(payTo)]);
    // Request 1 asked the service for its price (one unpaid POST); from here on, count afresh.
    expect(world?.requests).toEqual([{ method: "POST", paid: false }]);
    world!.requests.length = 0;

    // Another body under the same signature: refused before anything is sent.
    const tampered = encodePaymentSignatureHeader({ ...approval!, body: '{"text":"Thank you","to":"de"}' }, signature);
    const refused = await harness.chat(question, { headers: { "PAYMENT-SIGNATURE": tampered } });
    expect(refused.response.status).toBe(402);
    expect(world?.requests).toEqual([]);

    scenario = () => ({ text: "Paid and translated." });
    firstCallOfTest = fake.requests.length;
    const second = await harness.chat(question, { headers: { "PAYMENT-SIGNATURE": encodePaymentSignatureHeader(approval!, signature) } });
    expect(second.response.status).toBe(200);
    expect(second.finish).toMatchObject({ finishReason: "payment-complete" });
    expect(world?.paidBodies).toEqual([{ text: "Thank you", to: "fr" }]);
    expect(await harness.usdcBalance(user)).toBe(userBefore - TRANSLATE_PRICE);
    expect(await harness.usdcBalance(payTo)).toBe(payeeBefore + TRANSLATE_PRICE);
  });
});
