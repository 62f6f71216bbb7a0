/**
 * Paid MCP tools on the local world: the devnet's MCP server (Streamable HTTP, x402 over MCP)
 * and the agent buying from it through the chat endpoint, with a scripted model that finds the
 * tools with discover_services and calls them with call_paid_mcp_tool.
 *
 * - the priced tool with a structured input: the chain shows exactly its price moved, the
 *   result reaches the model;
 * - the tool that fails after payment: reported as paid (the transaction hash), with no data;
 * - the free tool: no payment at all;
 * - a price over the limit: refused, nothing signed, the tool never called with a payment;
 * - arguments outside the tool's schema: refused before anything is sent to the server.
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { Hex } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createBaseModel } from "../../lib/agent/model/create-chat-model";
import { grantsDependenciesOf } from "../../lib/app/grants-dependencies";
import { handleCreateGrant, handlePrepareGrant } from "../../lib/grants/handle-grants-request";
import type { PaymentEvent } from "../../lib/stream";
import { startChatHarness, type ChatHarness } from "../support/chat-harness";
import { lastToolResult, startFakeOpenAiServer, type ChatCompletionMessage, type FakeOpenAiServer, type ScriptedReply } from "../support/fake-openai-server";
import { textOf } from "../support/scripted-replies";
import { usdcTransfers } from "../support/usdc-transfers";
import { askForMcpTool } from "../support/ask-mcp-tool";
import { paymentRequiredProblems } from "../../devnet/conformance/x402-conformance";
import { mcpPaymentRequiredResult } from "../conformance/fixtures/mcp";

let harness: ChatHarness;
let fake: FakeOpenAiServer;
/** Every request the agent sent to the MCP endpoint: its method and the JSON-RPC method in its body. */
const mcpRequests: { method: string; rpc: string; paid: boolean }[] = [];

/**
 * The user's message names the tool and its arguments: `mcp <tool> <json arguments>`. The model
 * discovers (query: the tool's name), calls the tool at the endpoint discovery listed for it
 * (the translate listing's endpoint for a tool the Bazaar does not list), then says what came back.
 */
function script(messages: ChatCompletionMessage[]): ScriptedReply {
  const asked = /^mcp (\S+) (.*)$/s.exec(textOf(messages.findLast((message) => message.role === "user")));
  if (!asked) return { text: "Which tool?" };
  const [, tool, args] = asked;
  const last = messages.at(-1);
  if (last?.role !== "tool") return { toolCalls: [{ name: "discover_services", arguments: { query: tool === "word_count" ? "translate" : tool } }] };
  const result = lastToolResult({ model: "m", messages } as never)?.content as { mcpTools?: { endpoint: string; tool: string }[]; status?: string } | undefined;
  if (result?.mcpTools) {
    const endpoint = result.mcpTools.find((listed) => listed.tool === tool)?.endpoint ?? result.mcpTools[0]?.endpoint;
    return endpoint
      ? { toolCalls: [{ name: "call_paid_mcp_tool", arguments: { endpoint, tool: tool!, arguments: JSON.parse(args!) as Record<string, unknown> } }] }
      : { text: "No MCP tool found." };
  }
  return { text: `Result: ${JSON.stringify(result).slice(0, 600)}` };
}

beforeAll(async () => {
  fake = await startFakeOpenAiServer((request) => script(request.messages));
  harness = await startChatHarness({ baseModel: createBaseModel({ apiKey: "test-key", baseUrl: fake.url, modelId: "gpt-test" }) });
  const endpoint = mcpEndpoint();
  const fetch = harness.deps.fetch;
  harness.deps.fetch = async (input, init) => {
    if (String(input).startsWith(endpoint)) {
      const body = typeof init?.body === "string" ? (JSON.parse(init.body) as { method?: string; params?: { _meta?: Record<string, unknown> } }) : {};
      mcpRequests.push({ method: init?.method ?? "GET", rpc: body.method ?? "", paid: body.params?._meta?.["x402/payment"] !== undefined });
    }
    return fetch(input, init);
  };
}, 120_000);

afterAll(async () => {
  await harness?.stop();
  await fake?.stop();
});

function mcpEndpoint(): string {
  const endpoint = harness.devnet.mcpTools?.[0]?.url;
  if (!endpoint) throw new Error("the local world lists no MCP tool");
  return endpoint;
}

const toolOf = (name: string) => {
  const found = harness.devnet.mcpTools?.find((tool) => tool.toolName === name);
  if (!found) throw new Error(`no MCP tool ${name}`);
  return found;
};
const agent = () => harness.devnet.accounts.agent.address as `0x${string}`;
const merchant = () => harness.devnet.accounts.merchant.address as `0x${string}`;
const balances = () => Promise.all([harness.usdcBalance(agent()), harness.usdcBalance(merchant())]);
const toolCallResults = () =>
  fake.requests.map((request) => lastToolResult(request)?.content).filter((content) => content !== undefined) as Record<string, unknown>[];
const paymentsOf = (payments: PaymentEvent[]) => payments.filter((payment) => !payment.id.startsWith("disc_"));

const transfers = (txHash: Hex) => usdcTransfers(harness.devnet, txHash);

function ask(tool: string, args: Record<string, unknown>, extra: Record<string, unknown> = {}, headers: Record<string, string> = {}) {
  mcpRequests.length = 0;
  return askForMcpTool(harness, fake, tool, args, extra, headers);
}

describe("the local world's MCP server", () => {
  it("is in the coordinates and in the Bazaar as the spec lists MCP tools", async () => {
    expect(harness.devnet.mcpTools?.map((tool) => [tool.toolName, tool.price, tool.listed])).toEqual([
      ["translate", "0.02", true],
      ["summarize", "0.01", true],
      ["word_count", "0", false],
    ]);
    const list = (await (await fetch(`${harness.devnet.facilitatorUrl}/discovery/resources?type=mcp`)).json()) as { items: Record<string, unknown>[] };
    expect(list.items).toHaveLength(2);
    expect(list.items[0]).toMatchObject({
      type: "mcp",
      resource: mcpEndpoint(),
      x402Version: 2,
      extensions: {
        bazaar: {
          info: { input: { type: "mcp", toolName: "translate", transport: "streamable-http", inputSchema: { type: "object", required: ["text", "target"] } } },
        },
      },
    });

    // The listing's input schema is the one the tool itself declares (`tools/list`).
    const client = new Client({ name: "conformance", version: "1.0.0" });
    await client.connect(new StreamableHTTPClientTransport(new URL(mcpEndpoint())));
    try {
      const { tools } = await client.listTools();
      expect(tools.map((tool) => tool.name)).toEqual(["translate", "summarize", "word_count"]);
      const listed = list.items.map(
        (item) => (item as { extensions: { bazaar: { info: { input: { inputSchema: unknown } } } } }).extensions.bazaar.info.input.inputSchema,
      );
      expect(listed).toEqual(tools.slice(0, 2).map((tool) => tool.inputSchema));
    } finally {
      await client.close();
    }
  });

  it(`answers an unpaid call of a priced tool as the spec shows (${mcpPaymentRequiredResult.source}), and the free tool plainly`, async () => {
    const client = new Client({ name: "conformance", version: "1.0.0" });
    await client.connect(new StreamableHTTPClientTransport(new URL(mcpEndpoint())));
    try {
      const unpaid = (await client.callTool({ name: "translate", arguments: { text: "hi", target: "fr" } })) as Record<string, unknown>;
      // The spec's fields, and no others.
      expect(Object.keys(unpaid).sort()).toEqual(Object.keys(mcpPaymentRequiredResult.value).sort());
      expect(unpaid.isError).toBe(true);
      const structured = unpaid.structuredContent as Record<string, unknown>;
      expect(await paymentRequiredProblems(structured)).toEqual([]);
      expect(structured).toMatchObject({
        x402Version: 2,
        resource: { url: mcpEndpoint() },
        accepts: [{ scheme: "exact", amount: toolOf("translate").amount }],
      });
      const [text] = unpaid.content as { type: string; text: string }[];
      expect(text?.type).toBe("text");
      expect(JSON.parse(text?.text ?? "")).toEqual({ "x402/error": { code: 402, message: "Payment required", data: structured } });

      const free = (await client.callTool({ name: "word_count", arguments: { text: "a b" } })) as Record<string, unknown>;
      expect(free.isError).toBeFalsy();
      expect(free.structuredContent).toEqual({ words: 2, characters: 3 });
      expect(free).not.toHaveProperty("_meta");
    } finally {
      await client.close();
    }
  });
});

describe("the agent buys paid MCP tools", () => {
  it("pays the structured tool exactly its price, once, and gets its result", async () => {
    const before = await balances();
    const result = await ask("translate", { text: "hello world", target: "fr" });
    const payments = paymentsOf(result.payments);
    expect([...new Set(payments.map((payment) => payment.status))]).toEqual(["quoted", "signing", "verifying", "confirmed", "delivered"]);
    expect(payments[0]).toMatchObject({ service: "translate", resource: `${mcpEndpoint()}#translate`, amount: "0.02" });
    const confirmed = payments.find((payment) => payment.status === "confirmed");
    expect(result.finish).toMatchObject({ finishReason: "payment-complete", txHash: confirmed?.txHash });
    const price = BigInt(toolOf("translate").amount ?? "");
    expect(await transfers(confirmed!.txHash as Hex)).toEqual([[agent(), merchant(), price]]);
    expect(await balances()).toEqual([before[0] - price, before[1] + price]);
    // One unpaid call, one paid one.
    expect(mcpRequests.filter((request) => request.rpc === "tools/call").map((request) => request.paid)).toEqual([false, true]);
    const delivered = toolCallResults().at(-1);
    expect(delivered).toMatchObject({
      status: "paid",
      service: "translate",
      amountUsdc: "0.02",
      txHash: confirmed?.txHash,
      result: { data: { translation: "bonjour monde" } },
    });
    expect(result.text).toContain("bonjour monde");
  });

  it("pays a paid MCP tool under a grant: from the user's wallet, with no approval", async () => {
    const user = privateKeyToAccount(harness.devnet.accounts.user.privateKey as Hex);
    const grantsDeps = grantsDependenciesOf(harness.deps);
    const post = (path: string, body: unknown) =>
      new Request(`http://127.0.0.1${path}`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
    const prepared = await handlePrepareGrant(post("/api/grants/prepare", { walletAddress: user.address, amount: "0.02" }), () => grantsDeps);
    const { typedData } = (await prepared.json()) as { typedData: Record<string, unknown> };
    const created = await handleCreateGrant(post("/api/grants", { typedData, signature: await user.signTypedData(typedData as never) }), () => grantsDeps);
    const { token } = (await created.json()) as { token: string };
    const [agentBefore, merchantBefore] = await balances();
    const userBefore = await harness.usdcBalance(user.address);

    const result = await ask("translate", { text: "hello world", target: "fr" }, { walletAddress: user.address }, { authorization: `Bearer ${token}` });
    const payments = paymentsOf(result.payments);
    expect([...new Set(payments.map((payment) => payment.status))]).toEqual(["quoted", "signing", "verifying", "confirmed", "delivered"]);
    expect(result.finish?.grant).toMatchObject({ remaining: "0" });
    const price = BigInt(toolOf("translate").amount ?? "");
    expect(await harness.usdcBalance(user.address)).toBe(userBefore - price);
    expect(await balances()).toEqual([agentBefore, merchantBefore + price]);
    expect(result.text).toContain("bonjour monde");
  });

  it("reports the tool that fails after payment as paid, with its transaction and no data", async () => {
    const before = await balances();
    const result = await ask("summarize", { text: "A long report about the weather in Lisbon." });
    const payments = paymentsOf(result.payments);
    const failed = payments.at(-1);
    expect(failed).toMatchObject({ status: "failed", reason: "payment-failed", service: "summarize" });
    expect(failed?.txHash).toMatch(/^0x[0-9a-f]{64}$/);
    expect(failed?.message).toMatch(/returned an error result after receiving the payment/);
    expect(failed?.message).toMatch(/did settle on chain, but no data was delivered/);
    expect(payments.map((payment) => payment.status)).toContain("confirmed");
    const price = BigInt(toolOf("summarize").amount ?? "");
    expect(await transfers(failed!.txHash as Hex)).toEqual([[agent(), merchant(), price]]);
    expect(await balances()).toEqual([before[0] - price, before[1] + price]);
    const told = toolCallResults().at(-1);
    expect(told).toMatchObject({ status: "failed", txHash: failed?.txHash });
    expect(told).not.toHaveProperty("result");
  });

  it("calls the free tool without any payment", async () => {
    const before = await balances();
    const result = await ask("word_count", { text: "one two three" });
    expect(paymentsOf(result.payments)).toEqual([]);
    expect(await balances()).toEqual(before);
    expect(mcpRequests.filter((request) => request.rpc === "tools/call").map((request) => request.paid)).toEqual([false]);
    expect(toolCallResults().at(-1)).toMatchObject({ status: "free", service: "word_count", result: { data: { words: 3, characters: 13 } } });
  });

  it("refuses a price over the limit with nothing signed", async () => {
    const before = await balances();
    const result = await ask("translate", { text: "good morning", target: "es" }, { spendingLimits: { perPayment: "0.01" } });
    const payments = paymentsOf(result.payments);
    expect(payments.map((payment) => payment.status)).toEqual(["quoted", "failed"]);
    expect(payments.at(-1)).toMatchObject({ reason: "limit-exceeded" });
    expect(payments.at(-1)?.message).toMatch(/nothing was signed/);
    expect(await balances()).toEqual(before);
    expect(mcpRequests.filter((request) => request.rpc === "tools/call").map((request) => request.paid)).toEqual([false]);
  });

  it("refuses arguments outside the tool's schema before anything is sent", async () => {
    const before = await balances();
    const result = await ask("translate", { text: "hello", target: "klingon" });
    expect(paymentsOf(result.payments)).toEqual([]);
    expect(mcpRequests).toEqual([]);
    expect(toolCallResults().at(-1)).toMatchObject({ status: "refused", message: expect.stringMatching(/target must be one of "fr", "es"/) });
    expect(await balances()).toEqual(before);
  });
});
