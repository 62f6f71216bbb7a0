/**
 * The built-in offline model: a deterministic AI SDK `LanguageModelV4` that understands the
 * demo intents (find services, buy a result, compare prices), drives the same tools a real
 * model would, and says plainly that it is the offline demo model.
 */
import type {
  LanguageModelV4,
  LanguageModelV4CallOptions,
  LanguageModelV4Content,
  LanguageModelV4Prompt,
  LanguageModelV4StreamPart,
  LanguageModelV4Usage,
} from "@ai-sdk/provider";
import { fillRouteTemplate } from "../../x402/call-usage";
import { readDemoIntent, type DemoIntent } from "./demo-intent";
import { helpText, LABEL, listText, purchaseText, type ServiceEntry } from "./demo-replies";

export const DEMO_MODEL_ID = "offline-demo";
const CALL_TOOL = "call_paid_service";
const DISCOVER_TOOL = "discover_services";

type Decision = { type: "text"; text: string } | { type: "tool"; toolName: string; input: Record<string, unknown> };

type ToolResult = { toolName: string; value: unknown };

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
  const userText =
    user && user.role === "user"
      ? user.content.map((part) => (part.type === "text" ? part.text : "")).join(" ")
      : "";
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
  const last = results.at(-1);

  if (!last) {
    if (intent.kind === "help") return { type: "text", text: helpText(userText) };
    if (intent.kind === "declined") return { type: "text", text: `${LABEL}\n\nUnderstood: nothing was signed and nothing was paid. Ask me anything else.` };
    return { type: "tool", toolName: DISCOVER_TOOL, input: "query" in intent && intent.query ? { query: intent.query } : {} };
  }

  if (last.toolName === DISCOVER_TOOL) {
    const services = servicesOf(last.value);
    if (intent.kind !== "buy") return { type: "text", text: listText(services, intent) };
    const chosen = services[0];
    if (!chosen?.resource) {
      return { type: "text", text: `${LABEL}\n\nI could not find a paid service for “${intent.query}” right now. Try asking me to *list services*.` };
    }
    return { type: "tool", toolName: CALL_TOOL, input: callFor(chosen, chosen.resource, intent) };
  }

  if (last.toolName === CALL_TOOL) return { type: "text", text: purchaseText(last.value) };
  return { type: "text", text: `${LABEL}\n\nDone.` };
}

function servicesOf(value: unknown): ServiceEntry[] {
  if (value && typeof value === "object" && Array.isArray((value as { services?: unknown }).services)) {
    return (value as { services: ServiceEntry[] }).services;
  }
  return [];
}

/**
 * The call, filled from the service's own example (its declared parameters with example values
 * and example body) with the user's words put where the service takes them. Nothing here names
 * a service: a service without an example gets the user's words as a query parameter.
 */
function callFor(service: ServiceEntry, resource: string, intent: Extract<DemoIntent, { kind: "buy" }>): { url: string; method: string; body?: Record<string, unknown> } {
  const example = service.example;
  let url: URL;
  try {
    url = new URL(example?.url ?? resource);
  } catch {
    url = new URL(resource);
  }
  const body = example?.body ? { ...example.body } : undefined;
  const parameter = intent.parameter;
  if (parameter) {
    if (body && parameter.name in body) body[parameter.name] = parameter.value;
    else if (example?.template && example.path && parameter.name in example.path) {
      const filled = new URL(fillRouteTemplate(example.template, { ...example.path, [parameter.name]: parameter.value }));
      filled.search = url.search;
      url = filled;
    } else if (!example || example.query?.includes(parameter.name)) url.searchParams.set(parameter.name, parameter.value);
  }
  const method = example?.method ?? "GET";
  return body ? { url: url.toString(), method, body } : { url: url.toString(), method };
}
