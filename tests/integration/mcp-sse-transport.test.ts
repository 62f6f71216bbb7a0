/**
 * Paid MCP tools on the legacy HTTP+SSE transport: the local world serves its MCP tools over SSE
 * too (`mcpOverSse`), and the Bazaar lists them with `transport: "sse"`. The agent, told by the
 * listing, opens the event stream once through the guarded fetch's streamed variant, posts its
 * messages, and pays through the same steps as every payment:
 *
 * - the priced tool: the chain shows exactly its price moved, once; the answer came back on the stream;
 * - a price over the limit: refused, nothing signed;
 * - a deployment without the streamed fetch: refused before anything is sent.
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { SSEClientTransport } from "@modelcontextprotocol/sdk/client/sse.js";
import type { Hex } from "viem";
import { paymentRequiredProblems } from "../../devnet/conformance/x402-conformance";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createBaseModel } from "../../lib/agent/model/create-chat-model";
import type { PaymentEvent } from "../../lib/stream";
import { startChatHarness, type ChatHarness } from "../support/chat-harness";
import { lastToolResult, startFakeOpenAiServer, type ChatCompletionMessage, type FakeOpenAiServer, type ScriptedReply } from "../support/fake-openai-server";
import { textOf } from "../support/scripted-replies";
import { usdcTransfers } from "../support/usdc-transfers";
import { askForMcpTool } from "../support/ask-mcp-tool";

let harness: ChatHarness;
let fake: FakeOpenAiServer;
/** Every request the agent sent to the SSE server: its method, path and JSON-RPC method. */
const sseRequests: { method: string; path: string; rpc: string; paid: boolean }[] = [];

/** `mcp <tool> <json arguments>`: discover the tool, call it at its SSE listing, say what came back. */
function script(messages: ChatCompletionMessage[]): ScriptedReply {
  const asked = /^mcp (\S+) (.*)$/s.exec(textOf(messages.findLast((message) => message.role === "user")));
  if (!asked) return { text: "Which tool?" };
  const [, tool, args] = asked;
  const last = messages.at(-1);
  if (last?.role !== "tool") return { toolCalls: [{ name: "discover_services", arguments: { query: tool } }] };
  const result = lastToolResult({ model: "m", messages } as never)?.content as
    { mcpTools?: { endpoint: string; tool: string; transport?: string }[] } | undefined;
  if (result?.mcpTools) {
    const listed = result.mcpTools.find((entry) => entry.tool === tool && entry.transport === "sse");
    return listed
      ? {
          toolCalls: [
            { name: "call_paid_mcp_tool", arguments: { endpoint: listed.endpoint, tool: tool!, arguments: JSON.parse(args!) as Record<string, unknown> } },
          ],
        }
      : { text: "No SSE listing." };
  }
  return { text: `Result: ${JSON.stringify(result).slice(0, 600)}` };
}

const sseTool = (name: string) => {
  const found = harness.devnet.mcpTools?.find((tool) => tool.toolName === name && tool.transport === "sse");
  if (!found) throw new Error(`no SSE listing of ${name}`);
  return found;
};

beforeAll(async () => {
  fake = await startFakeOpenAiServer((request) => script(request.messages));
  harness = await startChatHarness({
    devnet: { mcpOverSse: true },
    baseModel: createBaseModel({ apiKey: "test-key", baseUrl: fake.url, modelId: "gpt-test" }),
  });
  const origin = new URL(sseTool("translate").url).origin;
  const record = <F extends (input: string, init?: RequestInit) => Promise<Response>>(through: F) =>
    (async (input: string, init?: RequestInit) => {
      if (input.startsWith(origin)) {
        const body = typeof init?.body === "string" ? (JSON.parse(init.body) as { method?: string; params?: { _meta?: Record<string, unknown> } }) : {};
        sseRequests.push({
          method: init?.method ?? "GET",
          path: new URL(input).pathname,
          rpc: body.method ?? "",
          paid: body.params?._meta?.["x402/payment"] !== undefined,
        });
      }
      return through(input, init);
    }) as F;
  harness.deps.fetch = record(harness.deps.fetch);
  harness.deps.openStream = record(harness.deps.openStream!);
}, 120_000);

afterAll(async () => {
  await harness?.stop();
  await fake?.stop();
});

const agent = () => harness.devnet.accounts.agent.address as `0x${string}`;
const merchant = () => harness.devnet.accounts.merchant.address as `0x${string}`;
const balances = () => Promise.all([harness.usdcBalance(agent()), harness.usdcBalance(merchant())]);
const paymentsOf = (payments: PaymentEvent[]) => payments.filter((payment) => !payment.id.startsWith("disc_"));
const toolCalls = () => sseRequests.filter((request) => request.rpc === "tools/call").map((request) => request.paid);

const transfers = (txHash: Hex) => usdcTransfers(harness.devnet, txHash);

function ask(tool: string, args: Record<string, unknown>, extra: Record<string, unknown> = {}) {
  sseRequests.length = 0;
  return askForMcpTool(harness, fake, tool, args, extra);
}

describe("paid MCP tools over HTTP+SSE", () => {
  it("are listed with transport sse at the event stream's URL, next to the Streamable HTTP ones", async () => {
    const list = (await (await fetch(`${harness.devnet.facilitatorUrl}/discovery/resources?type=mcp`)).json()) as {
      items: { resource: string; extensions: { bazaar: { info: { input: { toolName: string; transport: string } } } } }[];
    };
    const listed = list.items.map((item) => [
      item.extensions.bazaar.info.input.toolName,
      item.extensions.bazaar.info.input.transport,
      new URL(item.resource).pathname,
    ]);
    expect(listed).toEqual([
      ["translate", "streamable-http", "/mcp"],
      ["summarize", "streamable-http", "/mcp"],
      ["translate", "sse", "/sse"],
      ["summarize", "sse", "/sse"],
    ]);
  });

  it("asks for payment over SSE with a PaymentRequired that @x402/core's own schemas accept, naming the event stream as the resource", async () => {
    const client = new Client({ name: "conformance", version: "1.0.0" });
    await client.connect(new SSEClientTransport(new URL(sseTool("translate").url)));
    try {
      const unpaid = (await client.callTool({ name: "translate", arguments: { text: "hi", target: "fr" } })) as {
        isError?: boolean;
        structuredContent?: Record<string, unknown>;
      };
      expect(unpaid.isError).toBe(true);
      expect(await paymentRequiredProblems(unpaid.structuredContent)).toEqual([]);
      expect(unpaid.structuredContent).toMatchObject({
        x402Version: 2,
        resource: { url: sseTool("translate").url },
        accepts: [{ scheme: "exact", amount: sseTool("translate").amount }],
      });
    } finally {
      await client.close();
    }
  });

  it("pays the priced tool exactly its price, once, with the answer on the event stream opened once", async () => {
    const before = await balances();
    const result = await ask("translate", { text: "hello world", target: "fr" });
    const payments = paymentsOf(result.payments);
    expect([...new Set(payments.map((payment) => payment.status))]).toEqual(["quoted", "signing", "verifying", "confirmed", "delivered"]);
    expect(payments[0]).toMatchObject({ service: "translate", resource: `${sseTool("translate").url}#translate`, amount: "0.02" });
    const confirmed = payments.find((payment) => payment.status === "confirmed");
    const price = BigInt(sseTool("translate").amount ?? "");
    expect(await transfers(confirmed!.txHash as Hex)).toEqual([[agent(), merchant(), price]]);
    expect(await balances()).toEqual([before[0] - price, before[1] + price]);
    expect(toolCalls()).toEqual([false, true]);
    // One event stream; every message (initialize, the calls) posted to the session's path.
    expect(sseRequests.filter((request) => request.method === "GET").map((request) => request.path)).toEqual(["/sse"]);
    expect(new Set(sseRequests.filter((request) => request.method === "POST").map((request) => request.path))).toEqual(new Set(["/messages"]));
    expect(lastToolResult(fake.requests.at(-1)!)?.content).toMatchObject({
      status: "paid",
      amountUsdc: "0.02",
      txHash: confirmed?.txHash,
      result: { data: { translation: "bonjour monde" } },
    });
    // The journal has it, as for any payment.
    const journal = await harness.deps.store.journal.history({ service: "translate", limit: 5 });
    expect(journal.find((entry) => entry.txHash === confirmed?.txHash)).toMatchObject({
      status: "delivered",
      resource: `${sseTool("translate").url}#translate`,
    });
  });

  it("refuses a price over the limit with nothing signed", async () => {
    const before = await balances();
    const result = await ask("translate", { text: "good morning", target: "es" }, { spendingLimits: { perPayment: "0.01" } });
    const payments = paymentsOf(result.payments);
    expect(payments.map((payment) => payment.status)).toEqual(["quoted", "failed"]);
    expect(payments.at(-1)).toMatchObject({ reason: "limit-exceeded" });
    expect(await balances()).toEqual(before);
    expect(toolCalls()).toEqual([false]);
  });

  it("without the streamed fetch, refuses the SSE listing before anything is sent", async () => {
    const openStream = harness.deps.openStream;
    harness.deps.openStream = undefined;
    try {
      const before = await balances();
      const result = await ask("translate", { text: "hello", target: "fr" });
      expect(paymentsOf(result.payments)).toEqual([]);
      expect(sseRequests).toEqual([]);
      expect(lastToolResult(fake.requests.at(-1)!)?.content).toMatchObject({
        status: "refused",
        message: expect.stringMatching(/sse transport.*nothing was paid|nothing was paid.*sse transport/i),
      });
      expect(await balances()).toEqual(before);
    } finally {
      harness.deps.openStream = openStream;
    }
  });
});
