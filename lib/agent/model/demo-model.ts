/**
 * The built-in offline model: a deterministic AI SDK `LanguageModelV4` that drives the same
 * tools a real model would. A URL the user gives is called as written (named-call-turn.ts). Any plain request is searched for with the user's own words; the
 * listing that fits best is called with inputs filled from the message (or the service's own
 * examples, said as assumptions); when nothing fits it says so. It also lists and compares
 * services, and says plainly that it is the offline demo model. It never signs or pays: the
 * tools do, within limits enforced in code.
 */
import type {
  LanguageModelV4,
  LanguageModelV4CallOptions,
  LanguageModelV4Content,
  LanguageModelV4Prompt,
  LanguageModelV4StreamPart,
  LanguageModelV4Usage,
} from "@ai-sdk/provider";
import { planCall, type PlannedCall } from "./call-plan";
import { MAX_QUERY_CHARS, readDemoIntent } from "./demo-intent";
import { answerText, askText, discoveryFailedText, helpText, LABEL, listText, nothingFitsText, type Choice } from "./demo-replies";
import { entriesOf, type ServiceEntry } from "./listing-inputs";
import { mcpEntriesOf } from "./mcp-entries";
import { bestFit, rankListings } from "./listing-relevance";
import { readNamedCall } from "./named-call";
import { namedCallTurn } from "./named-call-turn";
import { readRequest } from "./request-reading";
import { CALL_MCP_TOOL, CALL_TOOL, DISCOVER_TOOL, type Decision, type ToolResult } from "./turn-types";
import { plainQuery } from "./words";

export const DEMO_MODEL_ID = "offline-demo";

export type DemoModelOptions = {
  /** Pause between streamed text chunks, so text arrives progressively like a real model. */
  chunkDelayMs?: number;
};

export class DemoLanguageModel implements LanguageModelV4 {
  readonly specificationVersion = "v4" as const;
  readonly provider = "x402-agent";
  readonly modelId = DEMO_MODEL_ID;
  readonly supportedUrls = {};
  private readonly chunkDelayMs: number;
  private callCount = 0;

  constructor(options: DemoModelOptions = {}) {
    this.chunkDelayMs = options.chunkDelayMs ?? 0;
  }

  async doGenerate(options: LanguageModelV4CallOptions) {
    const decision = decide(options.prompt);
    const content: LanguageModelV4Content[] =
      decision.type === "text"
        ? [{ type: "text", text: decision.text }]
        : [{ type: "tool-call", toolCallId: this.nextCallId(), toolName: decision.toolName, input: JSON.stringify(decision.input) }];
    return {
      content,
      finishReason: { unified: decision.type === "text" ? ("stop" as const) : ("tool-calls" as const), raw: undefined },
      usage: usageOf(options.prompt, decision),
      warnings: [],
    };
  }

  async doStream(options: LanguageModelV4CallOptions) {
    const decision = decide(options.prompt);
    const callId = this.nextCallId();
    const delay = this.chunkDelayMs;
    const signal = options.abortSignal;
    const stream = new ReadableStream<LanguageModelV4StreamPart>({
      async start(controller) {
        controller.enqueue({ type: "stream-start", warnings: [] });
        controller.enqueue({ type: "response-metadata", id: callId, modelId: DEMO_MODEL_ID, timestamp: new Date(0) });
        if (decision.type === "tool") {
          controller.enqueue({ type: "tool-call", toolCallId: callId, toolName: decision.toolName, input: JSON.stringify(decision.input) });
        } else {
          controller.enqueue({ type: "text-start", id: "text-0" });
          for (const chunk of chunksOf(decision.text)) {
            if (signal?.aborted) break;
            controller.enqueue({ type: "text-delta", id: "text-0", delta: chunk });
            if (delay > 0) await new Promise((resolve) => setTimeout(resolve, delay));
          }
          controller.enqueue({ type: "text-end", id: "text-0" });
        }
        controller.enqueue({
          type: "finish",
          finishReason: { unified: decision.type === "text" ? "stop" : "tool-calls", raw: undefined },
          usage: usageOf(options.prompt, decision),
        });
        controller.close();
      },
    });
    return { stream };
  }

  private nextCallId(): string {
    this.callCount += 1;
    return `demo-call-${Date.now().toString(36)}-${this.callCount}`;
  }
}

/** Splits text into word-sized chunks, keeping whitespace, so it streams naturally. */
function chunksOf(text: string): string[] {
  return text.match(/\S+\s*|\s+/g) ?? [text];
}

function usageOf(prompt: LanguageModelV4Prompt, decision: Decision): LanguageModelV4Usage {
  const input = Math.ceil(JSON.stringify(prompt).length / 4);
  const output = Math.ceil((decision.type === "text" ? decision.text.length : JSON.stringify(decision.input).length) / 4);
  return {
    inputTokens: { total: input, noCache: input, cacheRead: 0, cacheWrite: 0 },
    outputTokens: { total: output, text: output, reasoning: 0 },
  };
}

/** The last user message and the tool results that followed it in this turn. */
function readTurn(prompt: LanguageModelV4Prompt): { userText: string; results: ToolResult[] } {
  let lastUser = -1;
  prompt.forEach((message, index) => {
    if (message.role === "user") lastUser = index;
  });
  const user = prompt[lastUser];
  const userText = user && user.role === "user" ? user.content.map((part) => (part.type === "text" ? part.text : "")).join(" ") : "";
  const results: ToolResult[] = [];
  for (const message of prompt.slice(lastUser + 1)) {
    if (message.role !== "tool") continue;
    for (const part of message.content) {
      if (part.type !== "tool-result") continue;
      const output = part.output;
      const value = output.type === "json" || output.type === "error-json" ? output.value : "value" in output ? output.value : undefined;
      results.push({ toolName: part.toolName, value });
    }
  }
  return { userText, results };
}

export function decide(prompt: LanguageModelV4Prompt): Decision {
  const { userText, results } = readTurn(prompt);
  const intent = readDemoIntent(userText);
  // A URL the user gave is the call asked for: called as written, never read for arguments.
  const named = intent.kind === "declined" ? undefined : readNamedCall(userText);
  if (named) return namedCallTurn(named, results);
  const last = results.at(-1);

  if (!last) {
    if (intent.kind === "help") return { type: "text", text: helpText(userText) };
    if (intent.kind === "declined") return { type: "text", text: `${LABEL}\n\nUnderstood: nothing was signed and nothing was paid. Ask me anything else.` };
    return { type: "tool", toolName: DISCOVER_TOOL, input: intent.query ? { query: intent.query } : {} };
  }

  if (last.toolName === DISCOVER_TOOL) {
    const searches = results.filter((result) => result.toolName === DISCOVER_TOOL);
    const failure = discoveryFailure(last.value);
    // Only the first search's failure ends the turn: a later one leaves what was found before.
    if (failure !== undefined && searches.length === 1) return { type: "text", text: discoveryFailedText(failure || undefined) };
    if (intent.kind !== "request")
      return { type: "text", text: listText([...entriesOf(last.value), ...mcpEntriesOf(last.value)], intent.kind === "list" ? intent.query : undefined) };
    const chosen = choose(userText, intent.query, searches);
    if (chosen.kind === "nothing") {
      // A search's ranking can miss what a listing says in other words: search again in plainer
      // words, then look through the list itself, before saying nothing fits.
      const attempts = searchAttempts(userText, intent.query);
      const next = attempts[searches.length];
      if (searches.length < attempts.length) return { type: "tool", toolName: DISCOVER_TOOL, input: next === undefined ? {} : { query: next } };
      return { type: "text", text: nothingFitsText(attempts, chosen.ranked) };
    }
    if (chosen.kind === "ask") return { type: "text", text: askText(chosen.entry, chosen.missing) };
    return callOf(chosen);
  }

  if (last.toolName === CALL_TOOL || last.toolName === CALL_MCP_TOOL) {
    // The choice is recomputed from this turn's discovery results: deterministic, so the answer
    // names the same listing and the same assumptions as the call that was made.
    const searches = results.filter((result) => result.toolName === DISCOVER_TOOL);
    const chosen = searches.length > 0 && intent.kind === "request" ? choose(userText, intent.query, searches) : undefined;
    return { type: "text", text: answerText(chosen?.kind === "call" ? chosen.choice : undefined, last.value) };
  }
  return { type: "text", text: `${LABEL}\n\nDone.` };
}

/** The call to the chosen listing: an HTTP service, or a paid MCP tool with its arguments. */
function callOf(chosen: Extract<Chosen, { kind: "call" }>): Decision {
  const mcp = chosen.choice.entry.mcp;
  if (!mcp) return { type: "tool", toolName: CALL_TOOL, input: chosen.call };
  const body = chosen.call.body;
  return { type: "tool", toolName: CALL_MCP_TOOL, input: { endpoint: mcp.endpoint, tool: mcp.tool, arguments: body && typeof body === "object" ? body : {} } };
}

/** The searches of a request, in order: the user's words, the same in plainer words, the whole list. */
function searchAttempts(userText: string, query: string): (string | undefined)[] {
  const plain = plainQuery(readRequest(userText, { whole: true }).request)
    .slice(0, MAX_QUERY_CHARS)
    .trim();
  return plain && plain !== query.toLowerCase() ? [query, plain, undefined] : [query, undefined];
}

type Chosen =
  | { kind: "call"; call: PlannedCall; choice: Choice }
  | { kind: "ask"; entry: Choice["entry"]; missing: Extract<ReturnType<typeof planCall>, { ok: false }>["missing"] }
  | { kind: "nothing"; ranked: ReturnType<typeof rankListings> };

/** The best-fitting listing of everything this turn's searches found, and the call to it. */
function choose(userText: string, query: string, searches: readonly ToolResult[]): Chosen {
  const byResource = new Map<string, ServiceEntry>();
  for (const search of searches) {
    for (const entry of [...entriesOf(search.value), ...mcpEntriesOf(search.value)])
      if (!byResource.has(entry.resource!)) byResource.set(entry.resource!, entry);
  }
  const entries = [...byResource.values()];
  let reading = readRequest(userText);
  let ranked = rankListings(reading, entries);
  let best = bestFit(ranked);
  // Quoted text or text after a colon is read as the payload; when the rest then fits nothing,
  // the colon or quotes may only have punctuated the request: read it whole.
  if (!best && reading.payload !== undefined) {
    const whole = readRequest(userText, { whole: true });
    const wholeRanked = rankListings(whole, entries);
    const wholeBest = bestFit(wholeRanked);
    if (wholeBest) [reading, ranked, best] = [whole, wholeRanked, wholeBest];
  }
  if (!best) return { kind: "nothing", ranked };
  const plan = planCall(best.entry, reading);
  if (!plan.ok) return { kind: "ask", entry: best.entry, missing: plan.missing };
  return { kind: "call", call: plan.call, choice: { entry: best.entry, inputs: plan.inputs, found: entries.length, query } };
}

/** A discovery result that is an error or a refusal: its message ("" when it has none). */
function discoveryFailure(value: unknown): string | undefined {
  if (!value || typeof value !== "object") return "";
  const record = value as { error?: unknown; status?: unknown; message?: unknown; services?: unknown };
  if (typeof record.error === "string") return record.error.slice(0, 300);
  if (record.status === "refused") return typeof record.message === "string" ? record.message.slice(0, 300) : "";
  return Array.isArray(record.services) ? undefined : "";
}
