/**
 * Form and text bodies, end to end in a real local world: a paid service listed in discovery
 * with the bazaar extension declaring `bodyType: "form-data"`, and one declaring `"text"`. The
 * model gives fields or a string and names no type; the service must receive exactly the
 * encoded body with the matching content type, settle the payment, and the chain must show it.
 * With the user's wallet, the content type is part of what was approved: request 2 with another
 * type is 402, reaches no service, and moves nothing.
 */
import type { LanguageModelV4CallOptions, LanguageModelV4StreamPart } from "@ai-sdk/provider";
import { declareDiscoveryExtension } from "@x402/extensions/bazaar";
import { MockLanguageModelV4, convertArrayToReadableStream } from "ai/test";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ApprovalRequest } from "../../lib/stream";
import { encodePaymentSignatureHeader } from "../../lib/x402/payment-signature-header";
import { walletTypedDataOf } from "../../lib/x402/approval-typed-data";
import { startChatHarness, userMessage, type ChatHarness } from "../support/chat-harness";
import { exactUsdcOption, startHostileService, type HostileService, type HostileWorld } from "../support/hostile-service";

const PRICE = 20_000n; // 0.02 USDC
// A payee nobody else pays, so its balance is exactly what this file paid it.
const payTo = privateKeyToAccount(generatePrivateKey()).address;
const FORM = "application/x-www-form-urlencoded";
const TEXT = "text/plain; charset=utf-8";

let harness: ChatHarness;
let hostile: HostileService;
let bazaar: HostileService;
let world: HostileWorld | undefined;

// ---------------------------------------------------------------------------------------------
// The scripted model: search, then call the first service found with the test's input.

type Plan = { query: string; input: (resource: string) => Record<string, unknown> };
let plan: Plan = { query: "nothing", input: (url) => ({ url }) };

function step(prompt: LanguageModelV4CallOptions["prompt"]): LanguageModelV4StreamPart[] {
  const after = prompt.slice(prompt.map((message) => message.role).lastIndexOf("user") + 1);
  const results = after.flatMap((message) => (message.role === "tool" ? message.content.flatMap((part) => (part.type === "tool-result" ? [part] : [])) : []));
  const last = results.at(-1);
  const finish = (reason: "stop" | "tool-calls"): LanguageModelV4StreamPart => ({
    type: "finish",
    finishReason: { unified: reason, raw: undefined },
    usage: { inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 }, outputTokens: { total: 1, text: 1, reasoning: 0 } },
  });
  const callTool = (toolName: string, input: unknown): LanguageModelV4StreamPart[] => [
    { type: "tool-call", toolCallId: `call-${Math.random().toString(36).slice(2)}`, toolName, input: JSON.stringify(input) },
    finish("tool-calls"),
  ];
  if (!last) return callTool("discover_services", { query: plan.query });
  if (last.toolName === "discover_services") {
    const services = ("value" in last.output ? (last.output.value as { services?: { resource: string }[] }) : {}).services ?? [];
    if (!services[0]) throw new Error(`nothing discovered for ${plan.query}`);
    return callTool("call_paid_service", plan.input(services[0].resource));
  }
  return [{ type: "text-start", id: "t" }, { type: "text-delta", id: "t", delta: "Done." }, { type: "text-end", id: "t" }, finish("stop")];
}

const model = new MockLanguageModelV4({ doStream: async ({ prompt }) => ({ stream: convertArrayToReadableStream(step(prompt)) }) });

// ---------------------------------------------------------------------------------------------
// The world: one hostile-service host serving the discovery list (the app's facilitator, which is
// never a service), another serving the two paid services.

function listing(path: string, serviceName: string, tags: string[], extensions: Record<string, unknown>) {
  if (!world) throw new Error("the service was asked before the world was up");
  return {
    resource: hostile.url(path),
    type: "http",
    x402Version: 2,
    accepts: [exactUsdcOption(world, { amount: PRICE.toString(), payTo })],
    description: `${serviceName}, paid per call.`,
    serviceName,
    tags,
    extensions,
  };
}

beforeAll(async () => {
  const paid = () => [exactUsdcOption(world!, { amount: PRICE.toString(), payTo })];
  hostile = await startHostileService({
    "/v1/subscribe": { accepts: paid, answer: () => ({ subscribed: true }) },
    "/v1/summarize": { accepts: paid, answer: () => ({ summary: "Short." }) },
  });
  bazaar = await startHostileService({
    // No search route: discovery falls back to the list, as with a facilitator without search.
    "/discovery/resources": {
      answer: () => {
        const items = [
          listing(
            "/v1/subscribe",
            "Letterbox",
            ["newsletter"],
            declareDiscoveryExtension({
              bodyType: "form-data",
              input: { email: "ada@example.com", list: "weekly" },
              inputSchema: { properties: { email: { type: "string" }, list: { type: "string" } }, required: ["email", "list"] },
            }),
          ),
          listing("/v1/summarize", "Shortly", ["summarize"], declareDiscoveryExtension({ bodyType: "text", input: {}, inputSchema: { properties: {} } })),
        ];
        return { items, pagination: { limit: 100, offset: 0, total: items.length } };
      },
    },
  });
  try {
    harness = await startChatHarness({
      baseModel: { model, modelId: "scripted", isDemo: false },
      network: async () => ({ facilitatorUrl: bazaar.origin, outboundAllowlist: [`127.0.0.1:${hostile.port}`] }),
    });
  } catch (error) {
    await Promise.all([hostile.close(), bazaar.close()]);
    throw error;
  }
  world = {
    facilitatorUrl: harness.devnet.facilitatorUrl,
    network: harness.devnet.network as `${string}:${string}`,
    usdc: harness.devnet.usdc,
    usdcName: harness.deps.network.usdcName,
    usdcVersion: harness.deps.network.usdcVersion,
  };
  hostile.configure(world);
}, 120_000);

afterAll(async () => {
  await harness?.stop();
  await Promise.all([hostile?.close(), bazaar?.close()]);
});

const requestsTo = (path: string) =>
  hostile.requests.filter((request) => request.path === path).map(({ hasPayment, body, contentType }) => ({ hasPayment, body, contentType }));

describe("form and text bodies, as the service declared them", () => {
  it("sends fields to a form-data service URL-encoded, with the form content type, and pays for it", async () => {
    const agent = harness.devnet.accounts.agent.address as `0x${string}`;
    const [agentBefore, payeeBefore] = await Promise.all([harness.usdcBalance(agent), harness.usdcBalance(payTo)]);
    plan = { query: "newsletter", input: (url) => ({ url, method: "POST", body: { email: "ada+news@example.com", list: "weekly digest" } }) };
    const result = await harness.chat(userMessage("Subscribe ada+news@example.com to the weekly digest newsletter"));
    expect(result.finish).toMatchObject({ finishReason: "payment-complete" });
    const sent = { body: "email=ada%2Bnews%40example.com&list=weekly+digest", contentType: FORM };
    expect(requestsTo("/v1/subscribe")).toEqual([
      { hasPayment: false, ...sent },
      { hasPayment: true, ...sent },
    ]);
    expect(hostile.settlements.filter((settlement) => settlement.path === "/v1/subscribe")).toHaveLength(1);
    expect(await harness.usdcBalance(agent)).toBe(agentBefore - PRICE);
    expect(await harness.usdcBalance(payTo)).toBe(payeeBefore + PRICE);
  });

  it("sends a string to a text service as UTF-8 plain text, and pays for it", async () => {
    const payeeBefore = await harness.usdcBalance(payTo);
    const text = "Résumé: the quarterly numbers went up. 数字が上がった。";
    plan = { query: "summarize", input: (url) => ({ url, method: "POST", body: text }) };
    const result = await harness.chat(userMessage("Summarize my note"));
    expect(result.finish).toMatchObject({ finishReason: "payment-complete" });
    expect(requestsTo("/v1/summarize")).toEqual([
      { hasPayment: false, body: text, contentType: TEXT },
      { hasPayment: true, body: text, contentType: TEXT },
    ]);
    expect(await harness.usdcBalance(payTo)).toBe(payeeBefore + PRICE);
  });

  it("a user's approval covers the form's content type: the same signature with another type is 402 and moves nothing", async () => {
    const user = harness.devnet.accounts.user.address as `0x${string}`;
    const question = { ...userMessage("Subscribe grace@example.com to the monthly newsletter"), walletAddress: user };
    plan = { query: "newsletter", input: (url) => ({ url, method: "POST", body: { email: "grace@example.com", list: "monthly" } }) };
    const first = await harness.chat(question);
    const approval = first.payments.find((payment) => payment.status === "awaiting-approval")?.approval as ApprovalRequest | undefined;
    const body = "email=grace%40example.com&list=monthly";
    expect(approval).toMatchObject({ method: "POST", resource: hostile.url("/v1/subscribe"), body, contentType: FORM });
    const signature = await privateKeyToAccount(harness.devnet.accounts.user.privateKey as `0x${string}`).signTypedData(walletTypedDataOf(approval!));
    const [userBefore, payeeBefore] = await Promise.all([harness.usdcBalance(user), harness.usdcBalance(payTo)]);
    const seenBefore = requestsTo("/v1/subscribe").length;

    for (const contentType of ["application/json", TEXT] as const) {
      const tampered = encodePaymentSignatureHeader({ ...approval!, contentType }, signature);
      const refused = await harness.chat(question, { headers: { "PAYMENT-SIGNATURE": tampered } });
      expect(refused.response.status).toBe(402);
      expect(await refused.response.json()).toMatchObject({ code: "payment_required:mismatch" });
    }
    expect(requestsTo("/v1/subscribe")).toHaveLength(seenBefore);
    expect(await harness.usdcBalance(user)).toBe(userBefore);

    const second = await harness.chat(question, { headers: { "PAYMENT-SIGNATURE": encodePaymentSignatureHeader(approval!, signature) } });
    expect(second.response.status).toBe(200);
    expect(second.finish).toMatchObject({ finishReason: "payment-complete" });
    expect(requestsTo("/v1/subscribe").slice(seenBefore)).toEqual([{ hasPayment: true, body, contentType: FORM }]);
    expect(await harness.usdcBalance(user)).toBe(userBefore - PRICE);
    expect(await harness.usdcBalance(payTo)).toBe(payeeBefore + PRICE);
  });
});
