import { expect } from "vitest";
import { findSequenceViolations } from "../../lib/stream";
import type { ChatHarness, ChatResult } from "./chat-harness";
import type { FakeOpenAiServer } from "./fake-openai-server";

/**
 * One chat turn asking for an MCP tool as the MCP tests' scripted models read it
 * (`mcp <tool> <json arguments>`), checked for a 200, a well-ordered stream and a model that
 * saw nothing it could not parse. The model's earlier requests are forgotten first.
 */
export async function askForMcpTool(
  harness: ChatHarness,
  fake: FakeOpenAiServer,
  tool: string,
  args: Record<string, unknown>,
  extra: Record<string, unknown> = {},
  headers: Record<string, string> = {},
): Promise<ChatResult> {
  fake.requests.length = 0;
  const result = await harness.chat({ messages: [{ role: "user", content: `mcp ${tool} ${JSON.stringify(args)}` }], ...extra }, { headers });
  expect(result.response.status).toBe(200);
  expect(findSequenceViolations(result.events)).toEqual([]);
  expect(fake.problems).toEqual([]);
  return result;
}
