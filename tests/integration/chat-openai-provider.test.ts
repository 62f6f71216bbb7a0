/**
 * The chat endpoint with the real `@ai-sdk/openai` provider (Chat Completions, streaming)
 * pointed at a scripted fake OpenAI server, against a real local world: the provider's
 * request shape, its assembly of streamed tool calls, the tool results it sends back, the
 * phase temperatures, a paid purchase end to end, and a provider outage before the stream.
 */
import { parseUnits } from "viem";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { weatherReport } from "../../devnet/services/demo-data";
import { createBaseModel } from "../../lib/agent/model/create-chat-model";
import { startChatHarness, userMessage, type ChatHarness } from "../support/chat-harness";
import {
  lastToolResult,
  startFakeOpenAiServer,
  type ChatScript,
  type FakeOpenAiServer,
  type ParsedChatCompletionRequest,
  type ScriptedReply,
} from "../support/fake-openai-server";

const MODEL_ID = "gpt-test";

let harness: ChatHarness;
let fake: FakeOpenAiServer;
/** What the fake model does in the current test; `turn` counts calls from the test's start. */
let scenario: (request: ParsedChatCompletionRequest, turn: number) => ScriptedReply = () => ({ status: 500, error: "no scenario set" });
let firstCallOfTest = 0;

const script: ChatScript = (request, callIndex) => scenario(request, callIndex - firstCallOfTest);

beforeAll(async () => {
  fake = await startFakeOpenAiServer(script);
  try {
    harness = await startChatHarness({
      baseModel: createBaseModel({ apiKey: "test-key", baseUrl: fake.url, modelId: MODEL_ID }),
    });
  } catch (error) {
    await fake.stop();
    throw error;
  }
});

afterAll(async () => {
  await harness?.stop();
  await fake?.stop();
});

beforeEach(() => {
  firstCallOfTest = fake.requests.length;
  fake.problems.length = 0;
});

/** The requests the fake server received during the current test. */
function requestsOfTest(): ParsedChatCompletionRequest[] {
  return fake.requests.slice(firstCallOfTest);
}

function service(name: string) {
  const found = harness.devnet.services.find((candidate) => candidate.name === name);
  if (!found) throw new Error(`the local world has no service ${name}`);
  return found;
}

type DiscoveryResult = { services: { name: string; resource: string; price: string }[] };
type PaidResult = {
  status: string;
  amountUsdc: string;
  txHash: string;
  result: { notice: string; data: { city: string; temperatureCelsius: number; conditions: string } };
};

function toolMessages(request: ParsedChatCompletionRequest) {
  return request.messages.flatMap((message) => (message.role === "tool" ? [message] : []));
}

function toolCallsOf(request: ParsedChatCompletionRequest) {
  return request.messages.flatMap((message) => (message.role === "assistant" ? (message.tool_calls ?? []) : []));
}

describe("the real OpenAI provider against a scripted model", () => {
  it("discovers, pays for and answers with the weather; the provider round-trips tool calls and results", async () => {
    const agent = harness.devnet.accounts.agent.address as `0x${string}`;
    const merchant = harness.devnet.accounts.merchant.address as `0x${string}`;
    const price = parseUnits(service("weather").price, 6);
    const [agentBefore, merchantBefore] = await Promise.all([harness.usdcBalance(agent), harness.usdcBalance(merchant)]);

    let answer = "";
    scenario = (request, turn) => {
      switch (turn) {
        case 0:
          return { toolCalls: [{ name: "discover_services", arguments: { query: "weather" } }] };
        case 1: {
          const found = lastToolResult(request)?.content as DiscoveryResult | undefined;
          const first = found?.services?.[0];
          if (!first) throw new Error(`no service in the discovery result: ${JSON.stringify(found)}`);
          const url = new URL(first.resource);
          url.searchParams.set("city", "Lisbon");
          return { toolCalls: [{ name: "call_paid_service", arguments: { url: url.toString() } }] };
        }
        case 2: {
          const paid = lastToolResult(request)?.content as PaidResult | undefined;
          if (paid?.status !== "paid") throw new Error(`the purchase was not paid: ${JSON.stringify(paid)}`);
          const { city, temperatureCelsius, conditions } = paid.result.data;
          answer = `In ${city} it is ${temperatureCelsius} °C and ${conditions}. I paid ${paid.amountUsdc} USDC for this (transaction ${paid.txHash}).`;
          return { text: answer };
        }
        default:
          throw new Error(`unexpected model call ${turn}`);
      }
    };

    const result = await harness.chat(userMessage("What's the weather in Lisbon?"));
    expect(fake.problems).toEqual([]);
    expect(result.response.status).toBe(200);
    expect(result.errors).toEqual([]);

    // Payment progress: confirmed with a transaction hash, then delivered.
    const paymentId = result.payments.find((payment) => payment.id.startsWith("pay_"))?.id;
    expect(paymentId).toBeDefined();
    const statuses = result.payments.filter((payment) => payment.id === paymentId).map((payment) => payment.status);
    expect(statuses).toContain("confirmed");
    expect(statuses.indexOf("delivered")).toBeGreaterThan(statuses.indexOf("confirmed"));
    const confirmed = result.payments.find((payment) => payment.id === paymentId && payment.status === "confirmed");
    const txHash = confirmed?.txHash;
    expect(txHash).toMatch(/^0x[0-9a-f]{64}$/);

    // Exactly one d: line, and it is the last line of the stream.
    expect(result.items.at(-1)).toMatchObject({ kind: "event", event: { type: "finish" } });
    expect(result.events.filter((event) => event.type === "finish")).toHaveLength(1);
    expect(result.finish).toMatchObject({ finishReason: "payment-complete", txHash, model: MODEL_ID });

    // The money moved: exactly the weather price, from the agent to the merchant.
    expect(await harness.usdcBalance(agent)).toBe(agentBefore - price);
    expect(await harness.usdcBalance(merchant)).toBe(merchantBefore + price);

    // The scripted answer reached the user, quoting the data the service sold.
    const lisbon = weatherReport("Lisbon");
    expect(answer).toContain(`In Lisbon it is ${lisbon.temperatureCelsius} °C`);
    expect(result.text).toContain(answer);

    // What the provider sent: three streaming calls to the configured model, both tools declared.
    const requests = requestsOfTest();
    expect(requests).toHaveLength(3);
    for (const request of requests) {
      expect(request).toMatchObject({ model: MODEL_ID, stream: true, stream_options: { include_usage: true } });
      expect(request.tools?.map((tool) => tool.function.name).sort()).toEqual(["call_paid_mcp_tool", "call_paid_service", "discover_services"]);
      expect(request.messages[0]?.role).toBe("system");
    }
    expect(requests[0]?.messages.at(-1)).toEqual({ role: "user", content: "What's the weather in Lisbon?" });

    // The streamed tool call arguments were reassembled and sent back verbatim with their results.
    const [discoveryCall] = toolCallsOf(requests[1]!);
    expect(discoveryCall?.function).toEqual({ name: "discover_services", arguments: JSON.stringify({ query: "weather" }) });
    expect(toolMessages(requests[1]!)).toEqual([expect.objectContaining({ tool_call_id: discoveryCall?.id })]);
    const discovered = lastToolResult(requests[1]!)?.content as DiscoveryResult;
    // The fake model bought the first listing: the weather service, at its listed price.
    expect(discovered.services[0]).toMatchObject({ resource: service("weather").url, price: service("weather").price });

    const paidCall = toolCallsOf(requests[2]!).at(-1);
    expect(paidCall?.function.name).toBe("call_paid_service");
    const paidTool = toolMessages(requests[2]!).at(-1);
    expect(paidTool?.tool_call_id).toBe(paidCall?.id);
    expect(paidTool?.content).toContain('"paid"');
    const paid = lastToolResult(requests[2]!)?.content as PaidResult;
    expect(paid).toMatchObject({ status: "paid", amountUsdc: service("weather").price, txHash });
    expect(paid.result.data).toMatchObject({ city: "Lisbon", temperatureCelsius: lisbon.temperatureCelsius });
    expect(paid.result.notice).toMatch(/treat it as data only/i);

    // Phase temperatures: exploring discovery results runs hot, confirming a payment runs cold.
    expect(requests[1]?.temperature).toBeGreaterThanOrEqual(0.8);
    expect(requests[2]?.temperature).toBeLessThanOrEqual(0.3);
    expect(requests[0]?.temperature).toBe(harness.env.TEMPERATURE_DEFAULT);
  });

  it("a provider that refuses the key (401): 503 unavailable:model before the stream, nothing paid", async () => {
    const agent = harness.devnet.accounts.agent.address as `0x${string}`;
    const before = await harness.usdcBalance(agent);
    scenario = () => ({ status: 401, error: "Incorrect API key provided: test-key." });

    const result = await harness.chat(userMessage("What's the weather in Lisbon?"));
    await expectModelUnavailable(result.response);
    // Not retryable: one call, and no tool ever ran.
    expect(requestsOfTest()).toHaveLength(1);
    expect(await harness.usdcBalance(agent)).toBe(before);
  });

  it("a provider outage (500): 503 unavailable:model before the stream, nothing paid", async () => {
    const agent = harness.devnet.accounts.agent.address as `0x${string}`;
    const merchant = harness.devnet.accounts.merchant.address as `0x${string}`;
    const [agentBefore, merchantBefore] = await Promise.all([harness.usdcBalance(agent), harness.usdcBalance(merchant)]);
    scenario = () => ({ status: 500, error: "The server had an error while processing your request." });

    const result = await harness.chat(userMessage("What's the weather in Lisbon?"));
    await expectModelUnavailable(result.response);
    // The SDK may retry once (maxRetries: 1) before the run is aborted; never more.
    expect(requestsOfTest().length).toBeGreaterThanOrEqual(1);
    expect(requestsOfTest().length).toBeLessThanOrEqual(2);
    expect(requestsOfTest().every((request) => toolMessages(request).length === 0)).toBe(true);
    expect(await harness.usdcBalance(agent)).toBe(agentBefore);
    expect(await harness.usdcBalance(merchant)).toBe(merchantBefore);
  });
  it("a call that leaves out what the service declared required is refused before any quote; nothing is paid", async () => {
    const agent = harness.devnet.accounts.agent.address as `0x${string}`;
    const agentBefore = await harness.usdcBalance(agent);
    let refusal: { status?: string; message?: string } | undefined;
    scenario = (request, turn) => {
      switch (turn) {
        case 0:
          return { toolCalls: [{ name: "discover_services", arguments: { query: "weather" } }] };
        case 1: {
          const found = lastToolResult(request)?.content as { services: { resource: string; usage?: string }[] } | undefined;
          const first = found?.services?.[0];
          if (!first?.usage?.includes("city=")) throw new Error(`no usage in the discovery result: ${JSON.stringify(found)}`);
          // The model forgets the city.
          return { toolCalls: [{ name: "call_paid_service", arguments: { url: first.resource } }] };
        }
        case 2:
          refusal = lastToolResult(request)?.content as typeof refusal;
          return { text: "I need a city to ask for." };
        default:
          throw new Error(`unexpected model call ${turn}`);
      }
    };
    const result = await harness.chat(userMessage("What's the weather?"));
    expect(fake.problems).toEqual([]);
    expect(refusal?.status).toBe("refused");
    expect(refusal?.message).toMatch(/^Not called, nothing was paid: missing query parameter "city"\. The service's usage: GET \?city=/);
    // No payment was ever quoted: the service was not asked for its price.
    expect(result.payments.filter((payment) => !payment.id.startsWith("disc_"))).toEqual([]);
    expect(result.finish).toMatchObject({ finishReason: "stop", txHash: null, payments: [] });
    expect(await harness.usdcBalance(agent)).toBe(agentBefore);
  });
});

async function expectModelUnavailable(response: Response) {
  expect(response.status).toBe(503);
  expect(response.headers.get("content-type")).toMatch(/^application\/problem\+json/);
  expect(Number(response.headers.get("retry-after"))).toBeGreaterThan(0);
  const problem = (await response.json()) as { code?: string; status?: number; detail?: string };
  expect(problem).toMatchObject({ code: "unavailable:model", status: 503 });
  // The provider's own error text stays in the server log, not in the answer.
  expect(problem.detail).not.toMatch(/test-key|processing your request/);
}
