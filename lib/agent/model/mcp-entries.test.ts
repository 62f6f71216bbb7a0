import type { LanguageModelV4Prompt } from "@ai-sdk/provider";
import { describe, expect, it } from "vitest";
import { decide } from "./demo-model";
import { entriesOf, inputsOf } from "./listing-inputs";
import { mcpEntriesOf } from "./mcp-entries";

const ENDPOINT = "https://tools.example.test/mcp";
const SPELLER = {
  name: "Spelling Fixer (MCP)",
  endpoint: ENDPOINT,
  tool: "fix_spelling",
  description: "Corrects the spelling of a short English text.",
  price: "0.003",
  transport: "streamable-http",
  tags: ["spelling", "mcp"],
  inputSchema: {
    type: "object",
    properties: {
      text: { type: "string", description: "The text to correct" },
      dialect: { type: "string", enum: ["us", "uk"], description: "Spelling convention" },
    },
    required: ["text"],
  },
  exampleArguments: { text: "teh cat" },
};
const discovered = (mcpTools: unknown[]) => ({ services: [], mcpTools, currency: "USDC" });

describe("paid MCP tools as demo listings", () => {
  it("reads a tool's inputs from the schema its listing shows, with its example arguments", () => {
    const [entry] = mcpEntriesOf(discovered([SPELLER]));
    expect(entry).toMatchObject({
      name: "Spelling Fixer (MCP)",
      resource: `${ENDPOINT}#fix_spelling`,
      price: "0.003",
      mcp: { endpoint: ENDPOINT, tool: "fix_spelling" },
    });
    expect(inputsOf(entry!)).toEqual({
      method: "POST",
      template: ENDPOINT,
      bodyType: "json",
      fields: [
        { name: "text", in: "body", required: true, type: "string", description: "The text to correct", example: "teh cat" },
        { name: "dialect", in: "body", required: false, type: "string", description: "Spelling convention", example: "us", choices: ["us", "uk"] },
      ],
    });
  });

  it("leaves out a tool whose schema is not shown, and never takes a service's listing for an MCP tool", () => {
    const { inputSchema: _hidden, ...withoutSchema } = SPELLER;
    expect(mcpEntriesOf(discovered([withoutSchema]))).toEqual([]);
    const [service] = entriesOf({ services: [{ name: "X", resource: "https://x.example.test/a", mcp: { endpoint: ENDPOINT, tool: "t" } }] });
    expect(service?.mcp).toBeUndefined();
  });

  it("lists MCP tools beside the services when asked what there is, marked as MCP tools", () => {
    const prompt: LanguageModelV4Prompt = [
      { role: "user", content: [{ type: "text", text: "Compare the prices of all services" }] },
      { role: "assistant", content: [{ type: "tool-call", toolCallId: "c0", toolName: "discover_services", input: {} }] },
      {
        role: "tool",
        content: [{ type: "tool-result", toolCallId: "c0", toolName: "discover_services", output: { type: "json", value: discovered([SPELLER]) as never } }],
      },
    ];
    const answer = decide(prompt) as { type: string; text: string };
    expect(answer.text).toMatch(/I found 1 paid service, cheapest first:\n\n- \*\*Spelling Fixer \(MCP\)\*\* \(MCP tool\): 0\.003 USDC per call/);
  });

  it("calls the tool that fits with call_paid_mcp_tool, its arguments from the message", () => {
    const text = "Fix the spelling of this: 'teh quick borwn fox'";
    const prompt: LanguageModelV4Prompt = [
      { role: "user", content: [{ type: "text", text }] },
      { role: "assistant", content: [{ type: "tool-call", toolCallId: "c0", toolName: "discover_services", input: { query: text } }] },
      {
        role: "tool",
        content: [{ type: "tool-result", toolCallId: "c0", toolName: "discover_services", output: { type: "json", value: discovered([SPELLER]) as never } }],
      },
    ];
    expect(decide(prompt)).toEqual({
      type: "tool",
      toolName: "call_paid_mcp_tool",
      input: { endpoint: ENDPOINT, tool: "fix_spelling", arguments: { text: "teh quick borwn fox", dialect: "us" } },
    });
  });
});
