import "server-only";
/**
 * One purchase from a paid MCP tool (x402 over MCP, specs/transports-v2/mcp.md): connect with
 * the official MCP client through the guarded fetch, call the tool unpaid, read its payment
 * request from the result, then pay ONCE through the same steps as an HTTP purchase
 * (run-purchase.ts: quote with its HMAC nonce, listing price, payee policy, limits, balance,
 * reservation, journal, signature; pay-and-deliver.ts and prove-payment.ts: the paid call, the
 * settlement proven on chain, or the chain's word when the answer does not prove one). The
 * MCP side of those requests is mcp-exchange.ts.
 *
 * A purchase is named in the journal and the stream by the tool's name (as the service) and
 * `<endpoint>#<tool>` (as the resource): one endpoint serves several tools.
 */
import { createHash } from "node:crypto";
import { ErrorCode, McpError } from "@modelcontextprotocol/sdk/types.js";
import { GuardedFetchError } from "../../net/guarded-fetch-error";
import { checkArguments, describeInputSchema, readInputSchema } from "../../x402/mcp-input-schema";
import type { McpTransport } from "../../x402/mcp-listing";
import { readToolPaymentRequest, ToolResult } from "../../x402/mcp-payment-request";
import { describeServiceText, sanitizeServiceText } from "../../x402/service-text";
import { connectMcp, UnsupportedMcpTransport, type McpConnection } from "./mcp-connection";
import { createMcpExchange, toolResultBody } from "./mcp-exchange";
import { describeFetchFailure } from "./http-call";
import type { PurchaseDependencies, PurchaseOutcome, PurchaseRequest } from "./purchase-types";
import { reportFailure } from "./report-payment";
import { runPurchase } from "./run-purchase";
import { readServiceData } from "./service-data";

/** How many of a server's tools a "no such tool" answer names. */
const TOOLS_NAMED = 12;

export type McpPurchaseRequest = Omit<PurchaseRequest, "service" | "url" | "method" | "body" | "contentType"> & {
  endpoint: string;
  toolName: string;
  arguments: Record<string, unknown>;
  transport: McpTransport;
  /**
   * The tool's input schema from its listing, checked before any call. Absent for a tool the
   * Bazaar did not list (on a listed server): the server's own `tools/list` declaration is
   * checked instead, and such a tool is called only if it asks for no payment.
   */
  inputSchema?: Record<string, unknown>;
};

/** The resource an MCP tool is journaled and shown as: its endpoint, and its name as the fragment. */
export function mcpResourceOf(endpoint: string, toolName: string): string {
  const url = new URL(endpoint);
  url.hash = encodeURIComponent(toolName);
  return url.toString();
}

/** What a paid MCP call sends, as the quote binds it: the tool and its arguments (keys sorted). */
export function mcpCallBody(toolName: string, args: Record<string, unknown>): string {
  return canonicalJson({ tool: toolName, arguments: args });
}

export async function runMcpPurchase(deps: PurchaseDependencies, request: McpPurchaseRequest): Promise<PurchaseOutcome> {
  const now = deps.now;
  const service = request.toolName;
  const resource = mcpResourceOf(request.endpoint, request.toolName);
  const provisional = { id: `pay_${createHash("sha256").update(`${request.intent}\n${resource}`).digest("hex").slice(0, 16)}`, service, resource };
  const fail = (reason: Parameters<typeof reportFailure>[2], message: string) => reportFailure(request.tracker, provisional, reason, message);
  const timeoutMs = () => Math.max(1, request.deadline - now());
  const host = new URL(request.endpoint).host;
  // A listed tool comes with the schema its listing declared; an unlisted one with none.
  const listed = request.inputSchema !== undefined;

  // A listed tool's arguments are checked against its listing before anything is sent at all.
  if (request.inputSchema) {
    const refusal = argumentsRefusal(request.inputSchema, request.arguments);
    if (refusal) return refusal;
  }

  let connection: McpConnection;
  try {
    connection = await connectMcp({ fetch: deps.fetch, openStream: deps.openStream }, request.endpoint, request.transport, {
      signal: request.signal,
      timeoutMs: timeoutMs(),
    });
  } catch (error) {
    if (error instanceof UnsupportedMcpTransport) {
      return {
        status: "refused",
        message: `Not called, nothing was paid: ${service} is served over ${error.message}, which this deployment is not set up to call.`,
      };
    }
    const refused = GuardedFetchError.find(error);
    if (refused?.code === "infrastructure" && !refused.requestMayHaveArrived) {
      return fail(
        "service-unavailable",
        `Not called: ${host} is the payment network's own server (its chain RPC or facilitator), not an MCP server. Nothing was sent, signed or paid.`,
      );
    }
    return fail("service-unavailable", `The MCP server of ${service} could not be reached (${describeMcpFailure(error)}); nothing was signed.`);
  }

  try {
    // 1. An unlisted tool's arguments against the server's own declaration, before the tool is called.
    if (!listed) {
      const declared = await declaredSchema(connection, request.toolName, { signal: request.signal, timeoutMs: timeoutMs() });
      if (declared.kind === "refused") return { status: "refused", message: declared.message };
      const refusal = argumentsRefusal(declared.schema, request.arguments);
      if (refusal) return refusal;
    }

    // 2. Call it without paying.
    let first: unknown;
    try {
      first = await connection.callTool(request.toolName, request.arguments, { signal: request.signal, timeoutMs: timeoutMs() });
    } catch (error) {
      return fail("service-unavailable", `${service} could not be called (${describeMcpFailure(error)}); nothing was signed.`);
    }

    // 3. Its payment request, if it asks for one.
    const asked = readToolPaymentRequest(first);
    if (asked.kind === "conflict") {
      return fail(
        "payment-failed",
        `${service} sent a payment request whose two copies (structured content and text) disagree, so neither is trusted; nothing was signed.`,
      );
    }
    if (asked.kind === "none") {
      const result = ToolResult.safeParse(first);
      if (!result.success) return fail("service-unavailable", `${service} answered with something that is not an MCP tool result; nothing was signed.`);
      const body = toolResultBody(result.data);
      if (result.data.isError)
        return fail(
          "service-unavailable",
          `${service} answered an error before any payment ${describeServiceText("error", body.text)}; nothing was signed or paid.`,
        );
      const data = await readServiceData(new Response(body.text, { headers: { "content-type": body.contentType } }));
      return { status: "free", service, resource, data };
    }
    if (!listed) {
      return fail(
        "payment-failed",
        `${service} asks for payment, but discovery does not list it, so no price for it was ever shown; nothing was signed. Use a tool that discovery lists.`,
      );
    }
    // A wallet approval comes back in a later request and is sent as an HTTP payment; an MCP
    // call's payment travels inside the MCP session of this request, so only the agent wallet pays one.
    if (request.payer.kind === "user") {
      return fail(
        "payment-failed",
        `${service} is a paid MCP tool, and paid MCP tools are paid by the agent wallet only (a wallet approval pays HTTP services); nothing was signed.`,
      );
    }

    // 4. Pay once, through the purchase steps every payment takes.
    const exchange = createMcpExchange(connection, {
      toolName: request.toolName,
      arguments: request.arguments,
      paymentRequired: asked.paymentRequired,
      timeoutMs,
    });
    const { endpoint: _endpoint, toolName: _toolName, arguments: _arguments, transport: _transport, inputSchema: _schema, ...common } = request;
    return await runPurchase(deps, {
      ...common,
      service,
      url: resource,
      method: "POST",
      body: mcpCallBody(request.toolName, request.arguments),
      contentType: "application/json",
      ask: exchange.ask,
      send: exchange.send,
    });
  } finally {
    await connection.close();
  }
}

function argumentsRefusal(schema: Record<string, unknown>, args: Record<string, unknown>): PurchaseOutcome | undefined {
  const problems = checkArguments(schema, args);
  if (problems.length === 0) return undefined;
  return { status: "refused", message: `Not called, nothing was paid: ${problems.join("; ")}. The tool's ${describeInputSchema(schema)}` };
}

/** The input schema the server itself declares for a tool (its `tools/list`). */
async function declaredSchema(
  connection: McpConnection,
  toolName: string,
  options: { signal?: AbortSignal; timeoutMs: number },
): Promise<{ kind: "schema"; schema: Record<string, unknown> } | { kind: "refused"; message: string }> {
  let tools: Awaited<ReturnType<McpConnection["listTools"]>>;
  try {
    tools = await connection.listTools(options);
  } catch (error) {
    return { kind: "refused", message: `Not called, nothing was paid: the MCP server's tools could not be listed (${describeMcpFailure(error)}).` };
  }
  const tool = tools.find((candidate) => candidate.name === toolName);
  if (!tool) {
    const names = tools.slice(0, TOOLS_NAMED).map((candidate) => sanitizeServiceText(candidate.name, 64));
    return {
      kind: "refused",
      message: `Not called, nothing was paid: this MCP server has no tool named ${JSON.stringify(sanitizeServiceText(toolName, 64))}. Its tools: ${names.join(", ") || "(none)"}.`,
    };
  }
  const schema = readInputSchema(tool.inputSchema);
  if (!schema) return { kind: "refused", message: `Not called, nothing was paid: the tool declares no usable input schema.` };
  return { kind: "schema", schema };
}

/** Why an MCP request failed, in a few words for people (never a URL or an address). */
export function describeMcpFailure(error: unknown): string {
  if (GuardedFetchError.find(error)) return describeFetchFailure(error);
  if (error instanceof McpError && error.code === ErrorCode.ConnectionClosed) return "the connection closed";
  if (error instanceof McpError)
    return error.code === ErrorCode.RequestTimeout ? "timed out" : `it answered an MCP error ${describeServiceText("message", error.message, 100)}`;
  const status = (error as { code?: unknown } | null)?.code;
  if (error instanceof Error && error.name !== "TimeoutError" && typeof status === "number" && status >= 100) return `it answered HTTP ${status}`;
  return describeFetchFailure(error);
}

function canonicalJson(value: unknown): string {
  return JSON.stringify(value, (_key, current: unknown) =>
    current !== null && typeof current === "object" && !Array.isArray(current)
      ? Object.fromEntries(Object.entries(current as Record<string, unknown>).sort(([left], [right]) => (left < right ? -1 : left > right ? 1 : 0)))
      : current,
  );
}
