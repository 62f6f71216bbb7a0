/**
 * The user-wallet approval flow echoes the 402's extensions to the service, as the agent wallet
 * does: request 1 freezes them into the approval (and its nonce), the browser sends them back
 * in PAYMENT-SIGNATURE, and request 2 sends them in the payment payload. The service here speaks
 * x402 v2 for real (verify and settle through the local facilitator) and keeps every payload it
 * is sent; its 402 declares `bazaar` and `payment-identifier`. Extensions changed on the way
 * back are refused like any changed term, and nothing reaches the service or moves.
 */
import type { LanguageModelV4StreamPart } from "@ai-sdk/provider";
import { PaymentPayloadSchema } from "@x402/core/schemas";
import { declarePaymentIdentifierExtension, extractPaymentIdentifier, PAYMENT_IDENTIFIER } from "@x402/extensions/payment-identifier";
import { convertArrayToReadableStream, MockLanguageModelV4 } from "ai/test";
import { getAddress } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ApprovalRequest } from "../../lib/stream";
import { encodePaymentSignatureHeader } from "../../lib/x402/payment-signature-header";
import { walletTypedDataOf } from "../../lib/x402/approval-typed-data";
import { bazaarGet } from "../conformance/fixtures/bazaar";
import { startChatHarness, type ChatHarness } from "../support/chat-harness";
import { exactUsdcOption, hostileWorldOf, startHostileService, type HostileService } from "../support/hostile-service";

const PRICE = 10_000n;
const PAYEE = getAddress(`0x${"c4".repeat(20)}`);
const PATH = "/catalogued";
const declared = { bazaar: bazaarGet.value, [PAYMENT_IDENTIFIER]: declarePaymentIdentifierExtension(false) };

/** A model that calls the URL the user named, then says it is done. */
const usage = { inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 }, outputTokens: { total: 1, text: 1, reasoning: 0 } };
let calls = 0;
const model = new MockLanguageModelV4({
  doStream: async ({ prompt }) => {
    const userText = prompt
      .flatMap((message) => (message.role === "user" ? message.content.map((part) => (part.type === "text" ? part.text : "")) : []))
      .join(" ");
    const url = userText.match(/https?:\/\/\S+/)?.[0];
    const parts: LanguageModelV4StreamPart[] =
      prompt.some((message) => message.role === "tool") || !url
        ? [
            { type: "text-start", id: "t" },
            { type: "text-delta", id: "t", delta: "Done." },
            { type: "text-end", id: "t" },
            { type: "finish", finishReason: { unified: "stop", raw: undefined }, usage },
          ]
        : [
            { type: "tool-call", toolCallId: `call-${(calls += 1)}`, toolName: "call_paid_service", input: JSON.stringify({ url, method: "GET" }) },
            { type: "finish", finishReason: { unified: "tool-calls", raw: undefined }, usage },
          ];
    return { stream: convertArrayToReadableStream(parts) };
  },
});

let hostile: HostileService;
let harness: ChatHarness;
let user: `0x${string}`;
let question: { messages: { role: string; content: string }[]; walletAddress: `0x${string}` };

beforeAll(async () => {
  hostile = await startHostileService({
    [PATH]: {
      accepts: (world) => [exactUsdcOption(world, { amount: PRICE.toString(), payTo: PAYEE })],
      extensions: declared,
      answer: () => ({ data: "catalogued" }),
    },
  });
  harness = await startChatHarness({
    baseModel: { model, modelId: "scripted-approval", isDemo: false },
    env: { OUTBOUND_ALLOWLIST: `127.0.0.1:${hostile.port}` },
  });
  hostile.configure(hostileWorldOf(harness.devnet, harness.devnet));
  user = harness.devnet.accounts.user.address as `0x${string}`;
  question = { messages: [{ role: "user", content: `Get the data at ${hostile.url(PATH)}` }], walletAddress: user };
});

afterAll(async () => {
  await hostile?.close();
  await harness?.stop();
});

async function requestApproval(): Promise<{ approval: ApprovalRequest; header: string }> {
  const first = await harness.chat(question);
  expect(first.response.status).toBe(200);
  const approval = first.payments.find((payment) => payment.status === "awaiting-approval")?.approval;
  if (!approval) throw new Error(`no approval: ${JSON.stringify(first.payments)}`);
  const signature = await privateKeyToAccount(harness.devnet.accounts.user.privateKey as `0x${string}`).signTypedData(walletTypedDataOf(approval));
  return { approval, header: encodePaymentSignatureHeader(approval, signature) };
}

/** The header's JSON changed by `change`, as a browser could send it. */
type HeaderPayload = { extensions?: Record<string, unknown>; resource: { info?: { description?: string } } };
function reencode(header: string, change: (payload: HeaderPayload) => void): string {
  const payload = JSON.parse(Buffer.from(header, "base64").toString("utf8")) as HeaderPayload;
  change(payload);
  return Buffer.from(JSON.stringify(payload)).toString("base64");
}

describe("the user's wallet pays a service whose 402 declares extensions", () => {
  it("the approval carries the 402's extensions, and the paid request sends them to the service", async () => {
    const before = await harness.usdcBalance(user);
    const { approval, header } = await requestApproval();
    // Frozen at request 1: every declaration echoed as declared. A user's payment carries no
    // identifier of ours: two approvals of one question are two payments, not one retried.
    expect(approval.extensions).toEqual(declared);
    const identifier = extractPaymentIdentifier({ x402Version: 2, extensions: approval.extensions } as never);
    expect(identifier).toBeFalsy();
    expect(hostile.payloads).toEqual([]);

    const second = await harness.chat(question, { headers: { "PAYMENT-SIGNATURE": header } });
    expect(second.response.status).toBe(200);
    expect(second.finish).toMatchObject({ finishReason: "payment-complete" });
    expect(hostile.payloads).toHaveLength(1);
    const sent = hostile.payloads[0]!.payload;
    expect(sent.extensions).toEqual(approval.extensions);
    expect(sent.extensions?.bazaar).toEqual(declared.bazaar);
    expect(extractPaymentIdentifier(sent)).toBeFalsy();
    expect(PaymentPayloadSchema.safeParse(sent).success).toBe(true);
    // The 402's resource is echoed whole, as the official client echoes it: description and MIME type too.
    expect(approval.resourceInfo).toEqual({ description: expect.any(String), mimeType: "application/json" });
    expect(sent.resource).toEqual({ url: approval.resource, ...approval.resourceInfo });
    expect(hostile.settlements).toMatchObject([{ path: PATH, payTo: PAYEE, amount: PRICE.toString() }]);
    expect(await harness.usdcBalance(user)).toBe(before - PRICE);
  });

  it("extensions or resource text changed, removed or added on the way back are refused with 402: nothing reaches the service or moves", async () => {
    const { header } = await requestApproval();
    const before = await harness.usdcBalance(user);
    const sentBefore = hostile.payloads.length;
    const tampered = [
      reencode(
        header,
        (payload) =>
          void (payload.extensions = {
            ...payload.extensions,
            bazaar: { ...bazaarGet.value, info: { input: { type: "http", method: "GET", queryParams: { city: "Porto" } } } },
          }),
      ),
      reencode(header, (payload) => void delete payload.extensions),
      reencode(header, (payload) => void (payload.extensions = { ...payload.extensions, extra: { info: {} } })),
      // What the service is told about itself is bound as well.
      reencode(header, (payload) => void (payload.resource.info = { ...payload.resource.info, description: "Something else" })),
      reencode(header, (payload) => void delete payload.resource.info),
    ];
    for (const value of tampered) {
      const result = await harness.chat(question, { headers: { "PAYMENT-SIGNATURE": value } });
      expect(result.response.status).toBe(402);
      expect(((await result.response.json()) as { code: string }).code).toBe("payment_required:mismatch");
    }
    expect(hostile.payloads).toHaveLength(sentBefore);
    expect(await harness.usdcBalance(user)).toBe(before);
  });
});
