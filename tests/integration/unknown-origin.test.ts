/**
 * A URL that came neither from discovery nor from the user's words (here: the model calls a
 * paid service nobody listed, as it would after reading its address in a service's answer or a
 * page) is paid by the agent wallet only after the person's go-ahead, in the two-request flow:
 * request 1 streams a confirmation token and pays nothing; request 2 sends it back in
 * `PAYMENT-APPROVAL` and the agent wallet pays exactly that. The chain is the judge. The same
 * URL named as MCP `buy`'s arguments is the caller's own call and is paid at once.
 */
import { randomUUID } from "node:crypto";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { handleMcpRequest } from "../../lib/mcp/handle-mcp-request";
import type { AgentConfirmation } from "../../lib/stream";
import { userMessage, type ChatHarness } from "../support/chat-harness";
import type { ParsedChatCompletionRequest, ScriptedReply } from "../support/fake-openai-server";
import { startForeignHarness, type ForeignHarness } from "../support/foreign-harness";
import { TRANSLATE_PRICE, type ForeignWorld } from "../support/foreign-world";

let harness: ChatHarness;
let world: ForeignWorld | undefined;
let foreign: ForeignHarness | undefined;
let scenario: (request: ParsedChatCompletionRequest) => ScriptedReply = () => ({ status: 500, error: "no scenario set" });

// The world's services may be reached, but discovery stays the local one: they are unlisted.
beforeAll(async () => {
  foreign = await startForeignHarness((request) => scenario(request), "local");
  ({ harness, world } = foreign);
});

afterAll(async () => {
  await foreign?.stop();
});

beforeEach(() => {
  world?.forget();
});

/** The model calls the unlisted translate service at once, then answers with what it got. */
function callUnlisted() {
  const body = { text: "Good morning", to: "fr" };
  scenario = (request) => {
    const last = request.messages.at(-1) as { role?: string } | undefined;
    if (last?.role === "tool") return { text: "Here is your translation." };
    return { toolCalls: [{ name: "call_paid_service", arguments: { url: world!.translate.resource, method: "POST", body } }] };
  };
  return body;
}

const ask = (content = "Translate good morning into French") => userMessage(content);

describe("a paid URL of unknown origin", () => {
  it("waits for the person's go-ahead: request 1 pays nothing, request 2 with the token pays exactly that", async () => {
    const body = callUnlisted();
    const agent = harness.devnet.accounts.agent.address as `0x${string}`;
    const before = await Promise.all([harness.usdcBalance(agent), harness.usdcBalance(world!.translate.payTo)]);
    const key = randomUUID();

    const first = await harness.chat(ask(), { headers: { "idempotency-key": key } });
    expect(first.finish).toMatchObject({ finishReason: "stop", txHash: null });
    const waiting = first.payments.find((payment) => payment.status === "awaiting-approval") as { confirmation?: AgentConfirmation } | undefined;
    // The per-payment limit (1 USDC by default) is the most the go-ahead lets the wallet pay.
    expect(waiting?.confirmation).toMatchObject({ method: "POST", resource: world!.translate.resource, maxAmount: "1" });
    expect(first.payments.map((payment) => payment.status)).not.toContain("signing");
    // Nothing was asked of the address before the person's go-ahead: not even its price.
    expect(world!.translate.requests).toEqual([]);
    expect(await Promise.all([harness.usdcBalance(agent), harness.usdcBalance(world!.translate.payTo)])).toEqual(before);

    const second = await harness.chat(ask(), { headers: { "idempotency-key": key, "payment-approval": waiting!.confirmation!.token } });
    expect(second.response.status).toBe(200);
    expect(second.finish).toMatchObject({ finishReason: "payment-complete" });
    expect(world!.translate.served.map((served) => served.body)).toEqual([body]);
    expect(await Promise.all([harness.usdcBalance(agent), harness.usdcBalance(world!.translate.payTo)])).toEqual([
      before[0]! - TRANSLATE_PRICE,
      before[1]! + TRANSLATE_PRICE,
    ]);

    // The same go-ahead again is a retry: the recorded outcome, no second payment.
    const again = await harness.chat(ask(), { headers: { "idempotency-key": key, "payment-approval": waiting!.confirmation!.token } });
    expect(again.response.status).toBe(200);
    expect(await harness.usdcBalance(world!.translate.payTo)).toBe(before[1]! + TRANSLATE_PRICE);
  });

  it("refuses a changed token, and a token from another conversation, with 402; nothing moves", async () => {
    callUnlisted();
    const key = randomUUID();
    const first = await harness.chat(ask(), { headers: { "idempotency-key": key } });
    const token = (first.payments.find((payment) => payment.status === "awaiting-approval") as { confirmation?: AgentConfirmation } | undefined)?.confirmation
      ?.token;
    expect(token).toBeDefined();
    const before = await harness.usdcBalance(world!.translate.payTo);
    const [payload, signature] = token!.split(".");
    const raised = Buffer.from(JSON.stringify({ ...JSON.parse(Buffer.from(payload!, "base64url").toString()), maxAmount: "100000000" })).toString("base64url");
    for (const [headers, code] of [
      [{ "idempotency-key": key, "payment-approval": `${raised}.${signature}` }, "payment_required:invalid_signature"],
      [{ "idempotency-key": randomUUID(), "payment-approval": token! }, "payment_required:mismatch"],
    ] as const) {
      const refused = await harness.chat(ask(), { headers });
      expect(refused.response.status).toBe(402);
      expect(await refused.response.json()).toMatchObject({ code });
    }
    expect(world!.translate.requests).toEqual([]);
    expect(await harness.usdcBalance(world!.translate.payTo)).toBe(before);
  });

  it("is paid at once when the user's own words named it", async () => {
    callUnlisted();
    const before = await harness.usdcBalance(world!.translate.payTo);
    const result = await harness.chat(ask(`Use ${world!.translate.resource} to translate good morning into French`), {
      headers: { "idempotency-key": randomUUID() },
    });
    expect(result.finish).toMatchObject({ finishReason: "payment-complete" });
    expect(await harness.usdcBalance(world!.translate.payTo)).toBe(before + TRANSLATE_PRICE);
  });
});

describe("the same URL named as the arguments of MCP buy", () => {
  // The caller named this exact call (method, URL, body), as a person does by writing it: it is
  // handed to the run as that call, not as a chat message made up for it, and paid at once.
  async function buy(args: Record<string, unknown>) {
    const transport = new StreamableHTTPClientTransport(new URL("http://127.0.0.1:3000/api/mcp"), {
      fetch: (url, init) => handleMcpRequest(new Request(url, init), () => harness.deps),
    });
    const client = new Client({ name: "unknown-origin-test", version: "1.0.0" });
    await client.connect(transport);
    try {
      return (await client.callTool({ name: "buy", arguments: args }, undefined, { timeout: 55_000 })) as CallToolResult & {
        structuredContent: Record<string, unknown>;
      };
    } finally {
      await client.close();
    }
  }

  it("is the caller's own call: paid exactly once, with no go-ahead", { timeout: 60_000 }, async () => {
    const body = { text: "Good night", to: "fr" };
    const before = await harness.usdcBalance(world!.translate.payTo);

    const bought = await buy({ url: world!.translate.resource, method: "POST", body, idempotencyKey: randomUUID() });
    expect(bought.structuredContent, JSON.stringify(bought.content)).toMatchObject({ status: "paid", method: "POST" });
    expect(world!.translate.served.map((served) => served.body)).toEqual([body]);
    expect(await harness.usdcBalance(world!.translate.payTo)).toBe(before + TRANSLATE_PRICE);
  });
});
