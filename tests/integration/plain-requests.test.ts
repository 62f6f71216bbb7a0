/**
 * The offline demo model routes plain requests by discovery: each request of the table
 * (plain-requests.table.ts) goes through the real chat handler on the local world, and the
 * service the model called (its `call_paid_service` URL, matched to the local world's
 * services; the `p:` events of the payment must agree) is compared with the one expected, or
 * the answer must say nothing fits and nothing may be called. The share routed right is
 * reported and must be at least 90 %. The model is the real demo model; it is only watched.
 */
import { wrapLanguageModel } from "ai";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEMO_MODEL_ID, DemoLanguageModel } from "../../lib/agent/model/demo-model";
import { startChatHarness, userMessage, type ChatHarness, type ChatResult } from "../support/chat-harness";
import { NOTHING, PLAIN_REQUESTS, type PlainRequest } from "./plain-requests.table";

/** Chats run at once: the payments of one do not wait for another's. */
const CONCURRENT_CHATS = 4;
const REQUIRED_SHARE = 0.9;

type ToolCall = {
  toolName: string;
  input: { url?: string; method?: string; body?: unknown; query?: string; endpoint?: string; tool?: string; arguments?: unknown };
};
type Outcome = {
  row: PlainRequest;
  called: string | undefined;
  paidTo: string | undefined;
  call: ToolCall["input"] | undefined;
  result: ChatResult;
  ok: boolean;
  why: string;
};

let harness: ChatHarness;
const toolCalls = new Map<string, ToolCall[]>();
const outcomes: Outcome[] = [];

/** The text of the last user message of a prompt: which chat a model call belongs to. */
function lastUserText(prompt: readonly { role: string; content: unknown }[]): string {
  const user = [...prompt].reverse().find((message) => message.role === "user");
  const parts = Array.isArray(user?.content) ? (user.content as { type: string; text?: string }[]) : [];
  return keyOf(parts.map((part) => (part.type === "text" ? (part.text ?? "") : "")).join(" "));
}

/** The chat request normalises what the user typed (“…” arrives as "..."): compare alike. */
function keyOf(text: string): string {
  return text.normalize("NFKC").replace(/\s+/g, " ").trim();
}

beforeAll(async () => {
  // The real demo model, watched: each tool call it streams is recorded under its chat's request.
  const model = wrapLanguageModel({
    model: new DemoLanguageModel(),
    middleware: {
      specificationVersion: "v4",
      wrapStream: async ({ doStream, params }) => {
        const result = await doStream();
        const key = lastUserText(params.prompt as { role: string; content: unknown }[]);
        const watched = result.stream.pipeThrough(
          new TransformStream({
            transform(part, controller) {
              if (part.type === "tool-call") {
                const calls = toolCalls.get(key) ?? [];
                calls.push({ toolName: part.toolName, input: JSON.parse(part.input) as ToolCall["input"] });
                toolCalls.set(key, calls);
              }
              controller.enqueue(part);
            },
          }),
        );
        return { ...result, stream: watched };
      },
    },
  });
  harness = await startChatHarness({
    devnet: { slowDelayMs: 50 },
    // Some fifty payments in one run, all from the agent wallet: room to spare under the daily limit.
    env: { LIMIT_DEFAULT_DAILY: "50" },
    baseModel: { model, modelId: DEMO_MODEL_ID, isDemo: true },
  });

  const queue = [...PLAIN_REQUESTS];
  const worker = async () => {
    for (let row = queue.shift(); row; row = queue.shift()) outcomes.push(await run(row));
  };
  await Promise.all(Array.from({ length: CONCURRENT_CHATS }, worker));
}, 300_000);

afterAll(async () => {
  await harness?.stop();
});

/** The local-world service whose URL (a route template's `:name` segments matching anything) the URL is. */
function serviceAt(url: string): string | undefined {
  const called = new URL(url);
  return harness.devnet.services.find((service) => {
    const listed = new URL(service.url);
    const pattern = new RegExp(
      `^${listed.pathname
        .split("/")
        .map((segment) => (segment.startsWith(":") ? "[^/]+" : segment.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")))
        .join("/")}$`,
    );
    return listed.origin === called.origin && pattern.test(called.pathname);
  })?.name;
}

function mcpToolAt(endpoint: string, tool: string | undefined): string | undefined {
  const listed = harness.devnet.mcpTools?.find((entry) => entry.url === endpoint && entry.toolName === tool);
  return listed ? `mcp:${listed.toolName}` : undefined;
}

async function run(row: PlainRequest): Promise<Outcome> {
  const result = await harness.chat(userMessage(row.request));
  const call = toolCalls.get(keyOf(row.request))?.find((entry) => entry.toolName === "call_paid_service" || entry.toolName === "call_paid_mcp_tool")?.input;
  // An MCP tool call names the tool at an endpoint of the local world's MCP server, as `mcp:<tool>`.
  const called = call?.url ? serviceAt(call.url) : call?.endpoint ? mcpToolAt(call.endpoint, call.tool) : undefined;
  const paidResource = result.payments.find((payment) => payment.id.startsWith("pay_") && payment.resource)?.resource;
  const paidTo = paidResource
    ? (serviceAt(paidResource) ?? mcpToolAt(paidResource.split("#")[0]!, decodeURIComponent(paidResource.split("#")[1] ?? "")))
    : undefined;
  const judged = judge(row, called, paidTo, call, result);
  return { row, called, paidTo, call, result, ...judged };
}

function judge(
  row: PlainRequest,
  called: string | undefined,
  paidTo: string | undefined,
  call: ToolCall["input"] | undefined,
  result: ChatResult,
): { ok: boolean; why: string } {
  if (result.response.status !== 200) return { ok: false, why: `HTTP ${result.response.status}` };
  if (row.expected === NOTHING) {
    if (called) return { ok: false, why: `called ${called}` };
    return /nothing listed fits/i.test(result.text) ? { ok: true, why: "said nothing fits" } : { ok: false, why: "did not say nothing fits" };
  }
  if (called !== row.expected) return { ok: false, why: called ? `called ${called}` : "called nothing" };
  // The payment's own events name the same service (the offline one is never reached).
  if (paidTo !== undefined && paidTo !== row.expected) return { ok: false, why: `p: events name ${paidTo}` };
  const sent = `${decodeURIComponent(call?.url ?? "").replace(/\+/g, " ")} ${JSON.stringify(call?.body ?? call?.arguments ?? "")}`;
  const sentFlat = sent.replace(/"(\w+)":\s*/g, "$1=");
  // A carried "name=value" is a whole parameter or field: "dataset=sales" is not "dataset=sales data".
  const carries = (value: string, text: string) =>
    value.includes("=") ? new RegExp(`${value.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}(?=[&\\s,}"]|$)`).test(text) : text.includes(value);
  const lost = (row.carries ?? []).filter((value) => !carries(value, sent) && !carries(value, sentFlat));
  return lost.length === 0 ? { ok: true, why: "called" } : { ok: false, why: `call lacks ${lost.join(", ")}: ${sent}` };
}

describe("plain requests reach the right service through discovery (offline demo model)", () => {
  it("covers every group of the local world with at least 30 requests", () => {
    expect(PLAIN_REQUESTS.length).toBeGreaterThanOrEqual(30);
    const groups = new Set(PLAIN_REQUESTS.map((row) => row.group));
    expect([...groups].sort()).toEqual([
      "body",
      "foreign-first",
      "foreign-only",
      "guides",
      "mcp",
      "nothing",
      "offline",
      "path",
      "query",
      "sign-in",
      "suggestion",
    ]);
  });

  it(`routes at least ${REQUIRED_SHARE * 100} % of them`, () => {
    expect(outcomes).toHaveLength(PLAIN_REQUESTS.length);
    const right = outcomes.filter((outcome) => outcome.ok).length;
    const share = right / outcomes.length;
    const report = [
      `plain requests routed right: ${right}/${outcomes.length} (${(share * 100).toFixed(1)} %)`,
      ...outcomes
        .filter((outcome) => !outcome.ok)
        .map((outcome) => `  MISSED [${outcome.row.group}] “${outcome.row.request}” expected ${outcome.row.expected}: ${outcome.why}`),
    ].join("\n");
    // Shown whatever the outcome: the share is this suite's result.
    process.stdout.write(`\n${report}\n`);
    expect(share, report).toBeGreaterThanOrEqual(REQUIRED_SHARE);
  });

  it("never pays when nothing fits, and says what it searched for with the closest listings", () => {
    for (const outcome of outcomes.filter((entry) => entry.row.expected === NOTHING)) {
      expect(
        outcome.result.payments.filter((payment) => payment.id.startsWith("pay_")),
        outcome.row.request,
      ).toEqual([]);
      expect(outcome.result.text, outcome.row.request).toMatch(/I searched the Bazaar for “/);
    }
  });

  it("says what it assumed when the request left an input out", () => {
    const lisbon = outcomes.find((outcome) => outcome.row.request === "Buy the food guide for Lisbon");
    expect(lisbon?.result.text).toMatch(/\*\*days\*\* = “2”: you did not say .*service's own example/);
  });

  it("buys paid MCP tools like any listing: the translation arrives, the summarizer's paid failure is reported with its transaction", () => {
    const translated = outcomes.find((outcome) => outcome.row.expected === "mcp:translate");
    expect(translated?.result.payments.find((payment) => payment.status === "quoted")).toMatchObject({ service: "translate", amount: "0.02" });
    expect(translated?.result.payments.find((payment) => payment.status === "delivered")).toMatchObject({
      service: "translate",
      result: { data: { translation: "bueno mañana" } },
    });
    expect(translated?.result.text).toContain("bueno mañana");
    for (const summarized of outcomes.filter((outcome) => outcome.row.expected === "mcp:summarize")) {
      const last = summarized.result.payments.filter((payment) => payment.id.startsWith("pay_")).at(-1);
      expect(last, summarized.row.request).toMatchObject({ status: "failed", service: "summarize" });
      expect(last?.txHash, summarized.row.request).toMatch(/^0x[0-9a-f]{64}$/);
    }
  });

  it("every chat ends with one well-formed finish and no error", () => {
    for (const outcome of outcomes) {
      expect(outcome.result.errors, outcome.row.request).toEqual([]);
      expect(outcome.result.finish, outcome.row.request).toBeDefined();
    }
  });
});
