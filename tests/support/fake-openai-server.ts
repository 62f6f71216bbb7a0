/**
 * A scripted stand-in for an OpenAI-compatible Chat Completions API, for integration tests
 * that run the real `@ai-sdk/openai` provider without the internet. It implements
 * `POST /v1/chat/completions` with the wire format of the real API: streaming (SSE
 * `chat.completion.chunk` lines ending in `data: [DONE]`, text and tool call arguments split
 * across several chunks, a usage chunk when `stream_options.include_usage` is set) and plain
 * JSON replies, plus HTTP errors in OpenAI's error shape to simulate an outage.
 *
 * Each request body is validated with zod and recorded, so tests can assert on what the
 * provider sent (temperatures, tools, the tool results it passed back).
 */
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import { z } from "zod";
import { closeServer, listen, LOOPBACK_HOST } from "../../devnet/http/listen";

const TextPart = z.looseObject({ type: z.literal("text"), text: z.string() });

/** Message content: a string, or (with prompt caching and multimodal input) an array of parts. */
const MessageContent = z.union([z.string(), z.array(z.looseObject({ type: z.string() }))]);

const ToolCall = z.object({
  id: z.string().min(1),
  type: z.literal("function"),
  function: z.object({ name: z.string().min(1), arguments: z.string() }),
});

const ChatMessage = z.discriminatedUnion("role", [
  z.looseObject({ role: z.literal("system"), content: z.union([z.string(), z.array(TextPart)]) }),
  z.looseObject({ role: z.literal("developer"), content: z.union([z.string(), z.array(TextPart)]) }),
  z.looseObject({ role: z.literal("user"), content: MessageContent }),
  z.looseObject({
    role: z.literal("assistant"),
    content: z.union([z.string(), z.array(TextPart)]).nullish(),
    tool_calls: z.array(ToolCall).optional(),
  }),
  z.looseObject({ role: z.literal("tool"), tool_call_id: z.string().min(1), content: z.union([z.string(), z.array(TextPart)]) }),
]);

const FunctionTool = z.object({
  type: z.literal("function"),
  function: z.object({
    name: z.string().regex(/^[A-Za-z0-9_-]{1,64}$/, "OpenAI function names are 1-64 letters, digits, _ or -"),
    description: z.string().optional(),
    parameters: z.record(z.string(), z.unknown()),
    strict: z.boolean().optional(),
  }),
});

/** The part of a Chat Completions request body this server understands; other fields pass through. */
export const ChatCompletionRequest = z.looseObject({
  model: z.string().min(1),
  messages: z.array(ChatMessage).min(1),
  tools: z.array(FunctionTool).optional(),
  tool_choice: z.unknown().optional(),
  temperature: z.number().min(0).max(2).optional(),
  stream: z.boolean().optional(),
  stream_options: z.object({ include_usage: z.boolean().optional() }).optional(),
});

export type ParsedChatCompletionRequest = z.infer<typeof ChatCompletionRequest>;
export type ChatCompletionMessage = z.infer<typeof ChatMessage>;

export type ScriptedToolCall = { name: string; arguments: Record<string, unknown> };

export type ScriptedReply = { text: string } | { toolCalls: ScriptedToolCall[] } | { status: number; error: string };

/** Decides the reply to one request; `callIndex` is the request's index in `requests`. */
export type ChatScript = (request: ParsedChatCompletionRequest, callIndex: number) => ScriptedReply;

export type FakeOpenAiServer = {
  /** Base URL for the provider's `baseURL`, ending in `/v1`. */
  url: string;
  /** Every valid chat completion request, in arrival order. */
  requests: ParsedChatCompletionRequest[];
  /** Requests refused as malformed, and scripts that threw: each answered with an HTTP error. */
  problems: string[];
  stop(): Promise<void>;
};

const MAX_BODY_BYTES = 5 * 1024 * 1024;

export async function startFakeOpenAiServer(script: ChatScript): Promise<FakeOpenAiServer> {
  const requests: ParsedChatCompletionRequest[] = [];
  const problems: string[] = [];
  let completionCounter = 0;

  const server = createServer((request, response) => {
    handle(request, response).catch((error: unknown) => {
      problems.push(`internal: ${String(error)}`);
      if (!response.headersSent) sendError(response, 500, "The fake server failed.", "server_error");
      else response.destroy();
    });
  });

  async function handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const path = new URL(request.url ?? "/", "http://localhost").pathname;
    if (path !== "/v1/chat/completions") {
      sendError(response, 404, `Unknown path ${path}.`, "invalid_request_error");
      return;
    }
    if (request.method !== "POST") {
      sendError(response, 405, `Method ${request.method ?? "?"} not allowed.`, "invalid_request_error");
      return;
    }
    if (!/^application\/json\b/i.test(request.headers["content-type"] ?? "")) {
      problems.push(`content-type: ${request.headers["content-type"] ?? "(none)"}`);
      sendError(response, 415, "Expected application/json.", "invalid_request_error");
      return;
    }
    const raw = await readBody(request);
    if (raw === undefined) {
      problems.push("body too large");
      sendError(response, 413, "Request body too large.", "invalid_request_error");
      return;
    }
    let json: unknown;
    try {
      json = JSON.parse(raw);
    } catch {
      problems.push("body is not JSON");
      sendError(response, 400, "We could not parse the JSON body of your request.", "invalid_request_error");
      return;
    }
    const parsed = ChatCompletionRequest.safeParse(json);
    if (!parsed.success) {
      const summary = parsed.error.issues.map((issue) => `${issue.path.join(".") || "(body)"}: ${issue.message}`).join("; ");
      problems.push(`invalid request: ${summary}`);
      sendError(response, 400, `Invalid request: ${summary}`, "invalid_request_error");
      return;
    }
    const body = parsed.data;
    requests.push(body);
    const callIndex = requests.length - 1;

    let reply: ScriptedReply;
    try {
      reply = script(body, callIndex);
    } catch (error) {
      problems.push(`script threw on call ${callIndex}: ${error instanceof Error ? error.message : String(error)}`);
      sendError(response, 500, "The scripted conversation failed.", "server_error");
      return;
    }

    if ("status" in reply) {
      sendError(response, reply.status, reply.error, reply.status === 401 ? "invalid_request_error" : "server_error");
      return;
    }
    completionCounter += 1;
    const completion = buildCompletion(reply, `chatcmpl-fake${completionCounter}`, body.model, callIndex);
    if (body.stream) await streamCompletion(response, completion, body.stream_options?.include_usage === true);
    else sendJson(response, 200, completionJson(completion));
  }

  const port = await listen(server);
  return {
    url: `http://${LOOPBACK_HOST}:${port}/v1`,
    requests,
    problems,
    stop: () => closeServer(server),
  };
}

/** The last `role: "tool"` message of a request, its JSON content parsed. */
export function lastToolResult(request: ParsedChatCompletionRequest): { toolCallId: string; content: unknown } | undefined {
  const message = request.messages.findLast((candidate) => candidate.role === "tool");
  if (message?.role !== "tool") return undefined;
  const text = typeof message.content === "string" ? message.content : message.content.map((part) => part.text).join("");
  let content: unknown;
  try {
    content = JSON.parse(text);
  } catch {
    content = text;
  }
  return { toolCallId: message.tool_call_id, content };
}

type Completion = {
  id: string;
  created: number;
  model: string;
  text: string | null;
  toolCalls: { id: string; name: string; arguments: string }[];
  finishReason: "stop" | "tool_calls";
  usage: { prompt_tokens: number; completion_tokens: number; total_tokens: number };
};

function buildCompletion(reply: { text: string } | { toolCalls: ScriptedToolCall[] }, id: string, model: string, callIndex: number): Completion {
  const created = Math.floor(Date.now() / 1000);
  const usage = { prompt_tokens: 100 + callIndex, completion_tokens: 20, total_tokens: 120 + callIndex };
  if ("text" in reply) return { id, created, model, text: reply.text, toolCalls: [], finishReason: "stop", usage };
  return {
    id,
    created,
    model,
    text: null,
    toolCalls: reply.toolCalls.map((call, index) => ({ id: `call_fake${callIndex}_${index}`, name: call.name, arguments: JSON.stringify(call.arguments) })),
    finishReason: "tool_calls",
    usage,
  };
}

function completionJson(completion: Completion) {
  return {
    id: completion.id,
    object: "chat.completion",
    created: completion.created,
    model: completion.model,
    system_fingerprint: null,
    choices: [
      {
        index: 0,
        message: {
          role: "assistant",
          content: completion.text,
          refusal: null,
          ...(completion.toolCalls.length
            ? { tool_calls: completion.toolCalls.map((call) => ({ id: call.id, type: "function", function: { name: call.name, arguments: call.arguments } })) }
            : {}),
        },
        logprobs: null,
        finish_reason: completion.finishReason,
      },
    ],
    usage: completion.usage,
  };
}

/** Streams like the real API: role first, content or tool calls in pieces, finish, usage, [DONE]. */
async function streamCompletion(response: ServerResponse, completion: Completion, includeUsage: boolean): Promise<void> {
  response.writeHead(200, { "Content-Type": "text/event-stream; charset=utf-8", "Cache-Control": "no-cache", Connection: "keep-alive" });
  const chunk = (choices: unknown[], extra: Record<string, unknown> = {}) => ({
    id: completion.id,
    object: "chat.completion.chunk",
    created: completion.created,
    model: completion.model,
    system_fingerprint: null,
    choices,
    ...extra,
  });
  const delta = (value: Record<string, unknown>, finishReason: string | null = null) => ({
    index: 0,
    delta: value,
    logprobs: null,
    finish_reason: finishReason,
  });

  const chunks: unknown[] = [];
  // The real API opens a text answer with content "" and a tool call answer with content null.
  chunks.push(chunk([delta({ role: "assistant", content: completion.text === null ? null : "", refusal: null })]));
  if (completion.text !== null) {
    for (const piece of splitIntoPieces(completion.text, 4)) chunks.push(chunk([delta({ content: piece })]));
  }
  completion.toolCalls.forEach((call, index) => {
    chunks.push(chunk([delta({ tool_calls: [{ index, id: call.id, type: "function", function: { name: call.name, arguments: "" } }] })]));
    for (const piece of splitIntoPieces(call.arguments, 3)) {
      chunks.push(chunk([delta({ tool_calls: [{ index, function: { arguments: piece } }] })]));
    }
  });
  chunks.push(chunk([delta({}, completion.finishReason)]));
  if (includeUsage) chunks.push(chunk([], { usage: completion.usage }));

  for (const value of chunks) {
    if (response.destroyed) return;
    response.write(`data: ${JSON.stringify(value)}\n\n`);
    // Let each chunk leave in its own write, so the client parses a stream that arrives in parts.
    await new Promise((resolve) => setImmediate(resolve));
  }
  if (!response.destroyed) response.end("data: [DONE]\n\n");
}

/** Splits text into `count` pieces of similar length (fewer when the text is short); never empty pieces. */
export function splitIntoPieces(text: string, count: number): string[] {
  const characters = Array.from(text);
  const size = Math.max(1, Math.ceil(characters.length / count));
  const pieces: string[] = [];
  for (let start = 0; start < characters.length; start += size) pieces.push(characters.slice(start, start + size).join(""));
  return pieces;
}

function sendJson(response: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  response.writeHead(status, { "Content-Type": "application/json", "Content-Length": Buffer.byteLength(text) });
  response.end(text);
}

function sendError(response: ServerResponse, status: number, message: string, type: string): void {
  sendJson(response, status, { error: { message, type, param: null, code: status === 401 ? "invalid_api_key" : null } });
}

async function readBody(request: IncomingMessage): Promise<string | undefined> {
  const parts: Buffer[] = [];
  let size = 0;
  for await (const part of request as AsyncIterable<Buffer>) {
    size += part.length;
    if (size > MAX_BODY_BYTES) return undefined;
    parts.push(part);
  }
  return Buffer.concat(parts).toString("utf8");
}
