/**
 * Fixtures for handler tests that never reach a chain: requests refused or answered before
 * any payment. Nothing here is ever contacted.
 */
import type { LanguageModelV4StreamPart } from "@ai-sdk/provider";
import { convertArrayToReadableStream, MockLanguageModelV4 } from "ai/test";
import type { NetworkConfig } from "../../lib/network/network-config";

/** A local-looking network whose endpoints are port 9 on loopback, which is not allowlisted. */
export const offlineNetwork: NetworkConfig = {
  name: "local",
  label: "Local devnet",
  chainId: 31337,
  caip2: "eip155:31337",
  networkNames: ["eip155:31337"],
  usdc: "0x5FbDB2315678afecb367f032d93F642f64180aa3",
  usdcName: "USD Coin",
  usdcVersion: "2",
  rpcUrl: "http://127.0.0.1:9",
  facilitatorUrl: "http://127.0.0.1:9",
  explorerUrl: undefined,
  agentPrivateKey: undefined,
  outboundAllowlist: [],
  devnet: undefined,
};

export const mockUsage = {
  inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 },
  outputTokens: { total: 1, text: 1, reasoning: 0 },
};

/** A mock model that answers every call with the same text. */
export function textModel(text: string): MockLanguageModelV4 {
  return new MockLanguageModelV4({
    doStream: async () => ({
      stream: convertArrayToReadableStream<LanguageModelV4StreamPart>([
        { type: "text-start", id: "t" },
        { type: "text-delta", id: "t", delta: text },
        { type: "text-end", id: "t" },
        { type: "finish", finishReason: { unified: "stop", raw: undefined }, usage: mockUsage },
      ]),
    }),
  });
}

/**
 * A model that makes `calls` (call_paid_service inputs) in its first step and stops once the
 * tools answered, collecting each tool result into `results`.
 */
export function toolCallsModel(calls: Record<string, unknown>[], results: unknown[]): MockLanguageModelV4 {
  return new MockLanguageModelV4({
    doStream: async ({ prompt }) => {
      const tools = prompt.filter((message) => message.role === "tool");
      if (tools.length > 0) {
        for (const message of tools)
          for (const part of message.content) if (part.type === "tool-result" && "value" in part.output) results.push(part.output.value);
        return {
          stream: convertArrayToReadableStream<LanguageModelV4StreamPart>([
            { type: "finish", finishReason: { unified: "stop", raw: undefined }, usage: mockUsage },
          ]),
        };
      }
      const parts: LanguageModelV4StreamPart[] = calls.map((input, index) => ({
        type: "tool-call",
        toolCallId: `call-${index}`,
        toolName: "call_paid_service",
        input: JSON.stringify(input),
      }));
      return {
        stream: convertArrayToReadableStream<LanguageModelV4StreamPart>([
          ...parts,
          { type: "finish", finishReason: { unified: "tool-calls", raw: undefined }, usage: mockUsage },
        ]),
      };
    },
  });
}
