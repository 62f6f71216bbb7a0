/**
 * A model that asks for twenty tool calls in one step gets at most MAX_TOOL_CALLS_PER_STEP of
 * them run; the rest are refused without touching discovery or a service.
 */
import type { LanguageModelV4StreamPart } from "@ai-sdk/provider";
import { MockLanguageModelV4, convertArrayToReadableStream } from "ai/test";
import { describe, expect, it } from "vitest";
import { mockUsage, offlineNetwork } from "../../tests/support/offline-fixtures";
import { createAppDependencies } from "../app/create-app-dependencies";
import { NOTHING_FOUND, WITHOUT_MCP_TOOLS } from "../x402/discovery-client";
import { handleChatRequest } from "../chat/handle-chat-request";
import { parseEnv } from "../env";
import { createMemoryStore } from "../store/create-memory-store";
import { decodeAll, type StreamEvent } from "../stream";
import { MAX_TOOL_CALLS_PER_STEP } from "./agent-run-types";

describe("tool calls per step", () => {
  it(`runs at most ${MAX_TOOL_CALLS_PER_STEP} of twenty calls asked for in one step`, async () => {
    const results: unknown[] = [];
    const model = new MockLanguageModelV4({
      doStream: async ({ prompt }) => {
        const toolMessages = prompt.filter((message) => message.role === "tool");
        if (toolMessages.length > 0) {
          for (const message of toolMessages) for (const part of message.content) if (part.type === "tool-result") results.push(part.output);
          return {
            stream: convertArrayToReadableStream<LanguageModelV4StreamPart>([
              { type: "text-start", id: "t" },
              { type: "text-delta", id: "t", delta: "Done." },
              { type: "text-end", id: "t" },
              { type: "finish", finishReason: { unified: "stop", raw: undefined }, usage: mockUsage },
            ]),
          };
        }
        const calls: LanguageModelV4StreamPart[] = Array.from({ length: 20 }, (_, index) => ({
          type: "tool-call" as const,
          toolCallId: `call-${index}`,
          toolName: "discover_services",
          input: JSON.stringify({ query: `query ${index}` }),
        }));
        return {
          stream: convertArrayToReadableStream<LanguageModelV4StreamPart>([
            ...calls,
            { type: "finish", finishReason: { unified: "tool-calls", raw: undefined }, usage: mockUsage },
          ]),
        };
      },
    });
    let discoveryRequests = 0;
    const deps = createAppDependencies(parseEnv({ RATE_LIMIT_REQUESTS: "100" }), {
      network: offlineNetwork,
      store: createMemoryStore(),
      baseModel: { model, modelId: "mock", isDemo: false },
    });
    deps.discovery = {
      ...WITHOUT_MCP_TOOLS,
      find: async () => {
        discoveryRequests += 1;
        return NOTHING_FOUND;
      },
      lookup: () => undefined,
    };
    const response = await handleChatRequest(
      new Request("http://127.0.0.1/api/chat", {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ messages: [{ role: "user", content: "find everything" }] }),
      }),
      () => deps,
    );
    const events = decodeAll(await response.text()).flatMap((item) => (item.kind === "event" ? [item.event] : [])) as StreamEvent[];
    expect(discoveryRequests).toBe(MAX_TOOL_CALLS_PER_STEP);
    expect(events.filter((event) => event.type === "payment" && event.payment.status === "discovering")).toHaveLength(MAX_TOOL_CALLS_PER_STEP);
    const refused = results.filter((output) => JSON.stringify(output).includes("Too many tool calls in one step"));
    expect(refused).toHaveLength(20 - MAX_TOOL_CALLS_PER_STEP);
  });
});
