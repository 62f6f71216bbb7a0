import { HTTPFacilitatorClient, x402ResourceServer } from "@x402/core/server";
import { parsePaymentPayload } from "@x402/core/schemas";
import { SettleError, type PaymentPayload, type PaymentRequired, type PaymentRequirements, type SettleResponse } from "@x402/core/types";
import { ExactEvmScheme } from "@x402/evm/exact/server";
import { declareDiscoveryExtension } from "@x402/extensions/bazaar";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { MAX_TIMEOUT_SECONDS, type PaymentTerms } from "../services/payment-terms";
import type { DemoMcpTool } from "./mcp-tools";

/** The `_meta` keys of x402's MCP transport (specs/transports-v2/mcp.md). */
export const MCP_PAYMENT_META_KEY = "x402/payment";
export const MCP_PAYMENT_RESPONSE_META_KEY = "x402/payment-response";
/** The wrapper `content[0].text` carries a PaymentRequired in. */
export const MCP_ERROR_KEY = "x402/error";

export type McpPaywallOptions = {
  terms: PaymentTerms;
  facilitatorUrl: string;
  facilitatorTimeoutMs: number;
  /** The MCP endpoint's URL: the resource a tool's PaymentRequired names, as the Bazaar lists it. */
  endpointUrl: string;
  /** What the tools' bazaar declarations name as their transport. */
  transport: "streamable-http" | "sse";
};

export type McpPaywall = {
  /** The payment requirements a priced tool's PaymentRequired lists (what discovery lists too). */
  acceptsFor(tool: DemoMcpTool): PaymentRequirements[];
  /** The bazaar extension a priced tool declares: type "mcp", its name, input schema and transport. */
  discoveryExtensionFor(tool: DemoMcpTool, inputSchema: Record<string, unknown>): Record<string, unknown>;
  /**
   * Runs one call of a priced tool: unpaid, it answers the payment request; paid, it verifies,
   * runs the tool, settles, and answers with the settlement in `_meta`.
   */
  call(
    tool: DemoMcpTool,
    args: Record<string, unknown>,
    meta: Record<string, unknown> | undefined,
    inputSchema: Record<string, unknown>,
  ): Promise<CallToolResult>;
};

/**
 * x402 over MCP for the local world's priced tools, with @x402/core's resource server and the
 * local facilitator over HTTP (as the HTTP services do). The order is the spec's: verify, run
 * the tool, settle. A tool that fails before settling costs nothing; the tool made to fail after
 * payment settles first, then answers an error result that still carries the settlement.
 */
export async function createMcpPaywall(options: McpPaywallOptions, tools: readonly DemoMcpTool[]): Promise<McpPaywall> {
  const { terms } = options;
  const resourceServer = new x402ResourceServer(new HTTPFacilitatorClient({ url: options.facilitatorUrl, timeoutMs: options.facilitatorTimeoutMs })).register(
    terms.network,
    new ExactEvmScheme(),
  );
  // Fetches /supported: the facilitator must settle this network and scheme.
  await resourceServer.initialize();

  const accepts = new Map<string, PaymentRequirements[]>();
  async function requirementsOf(tool: DemoMcpTool): Promise<PaymentRequirements[]> {
    const known = accepts.get(tool.name);
    if (known) return known;
    if (tool.price === undefined) throw new Error(`${tool.name} is free: it has no payment requirements`);
    const built = await resourceServer.buildPaymentRequirementsFromOptions(
      [
        {
          scheme: "exact",
          network: terms.network,
          payTo: terms.payTo,
          // An explicit asset amount: the local chain has no default USDC for x402 to price "$0.01" in.
          price: { amount: tool.price.toString(), asset: terms.token.address, extra: { name: terms.token.name, version: terms.token.version } },
          maxTimeoutSeconds: MAX_TIMEOUT_SECONDS,
        },
      ],
      {},
    );
    accepts.set(tool.name, built);
    return built;
  }
  for (const tool of tools) if (tool.price !== undefined) await requirementsOf(tool);

  function discoveryExtensionFor(tool: DemoMcpTool, inputSchema: Record<string, unknown>): Record<string, unknown> {
    return declareDiscoveryExtension({
      toolName: tool.name,
      description: tool.description,
      transport: options.transport,
      inputSchema,
      example: tool.example,
      output: { example: tool.exampleOutput },
    });
  }

  async function paymentRequired(tool: DemoMcpTool, error: string, inputSchema: Record<string, unknown>): Promise<PaymentRequired> {
    return resourceServer.createPaymentRequiredResponse(
      await requirementsOf(tool),
      { url: options.endpointUrl, description: tool.description, mimeType: "application/json", serviceName: tool.serviceName, tags: tool.tags },
      error,
      discoveryExtensionFor(tool, inputSchema),
    );
  }

  return {
    acceptsFor: (tool) => {
      const known = accepts.get(tool.name);
      if (!known) throw new Error(`${tool.name}: requirements are built when the server starts`);
      return known;
    },
    discoveryExtensionFor,
    async call(tool, args, meta, inputSchema) {
      const requirements = await requirementsOf(tool);
      const raw = meta?.[MCP_PAYMENT_META_KEY];
      if (raw === undefined) return paymentRequiredResult(await paymentRequired(tool, "Payment required to access this tool", inputSchema));
      const parsed = parsePaymentPayload(raw);
      if (!parsed.success) return paymentRequiredResult(await paymentRequired(tool, "invalid_payload", inputSchema));
      const payload = parsed.data as PaymentPayload;
      const matched = resourceServer.findMatchingRequirements(requirements, payload);
      if (!matched) return paymentRequiredResult(await paymentRequired(tool, "No matching payment requirements found", inputSchema));

      let verified: Awaited<ReturnType<typeof resourceServer.verifyPayment>>;
      try {
        verified = await resourceServer.verifyPayment(payload, matched);
      } catch {
        return errorResult("The payment could not be verified because the facilitator did not answer. Nothing was charged.");
      }
      if (!verified.isValid) return paymentRequiredResult(await paymentRequired(tool, verified.invalidReason ?? "Payment verification failed", inputSchema));

      const outcome = tool.answer(args);
      // An answer that failed before settling costs nothing: the payment is never settled.
      if (!outcome.ok && !tool.failsAfterPayment) return errorResult(`${outcome.text} The payment was not settled: nothing was charged.`);

      let settlement: SettleResponse;
      try {
        settlement = await resourceServer.settlePayment(payload, matched);
      } catch (error) {
        const failed: SettleResponse =
          error instanceof SettleError
            ? {
                success: false,
                errorReason: error.errorReason ?? "settle_failed",
                transaction: error.transaction ?? "",
                network: error.network,
                payer: error.payer,
              }
            : { success: false, errorReason: "settle_failed", transaction: "", network: matched.network };
        return settlementFailedResult(await paymentRequired(tool, `Payment settlement failed: ${failed.errorReason}`, inputSchema), failed);
      }
      if (!settlement.success)
        return settlementFailedResult(
          await paymentRequired(tool, `Payment settlement failed: ${settlement.errorReason ?? "settle_failed"}`, inputSchema),
          settlement,
        );

      const meta_ = { [MCP_PAYMENT_RESPONSE_META_KEY]: settlement };
      if (!outcome.ok) return { isError: true, content: [{ type: "text", text: outcome.text }], _meta: meta_ };
      return { content: [{ type: "text", text: outcome.text }], ...(outcome.structured ? { structuredContent: outcome.structured } : {}), _meta: meta_ };
    },
  };
}

/**
 * The spec's "Payment Required Signaling": `isError: true`, the PaymentRequired itself in
 * `structuredContent`, and in `content[0].text` the JSON of the `x402/error` wrapper
 * (`code` 402, a message, the PaymentRequired as `data`).
 */
export function paymentRequiredResult(required: PaymentRequired): CallToolResult {
  const wrapper = { [MCP_ERROR_KEY]: { code: 402, message: "Payment required", data: required } };
  return {
    isError: true,
    structuredContent: required as unknown as Record<string, unknown>,
    content: [{ type: "text", text: JSON.stringify(wrapper) }],
  };
}

/** The spec's "Settlement Failure": the PaymentRequired again, with the failed settlement inside it. */
function settlementFailedResult(required: PaymentRequired, settlement: SettleResponse): CallToolResult {
  const data = { ...required, [MCP_PAYMENT_RESPONSE_META_KEY]: settlement };
  const wrapper = { [MCP_ERROR_KEY]: { code: 402, message: "Payment settlement failed", data } };
  return { isError: true, structuredContent: data, content: [{ type: "text", text: JSON.stringify(wrapper) }] };
}

function errorResult(text: string): CallToolResult {
  return { isError: true, content: [{ type: "text", text }] };
}
