/**
 * An MCP tool as the Bazaar lists it (specs/extensions/bazaar.md, "MCP Tools"): the listing's
 * `type` is "mcp", its `resource` the MCP server's endpoint, and its `bazaar` extension's
 * `info.input` names the tool (`type: "mcp"`, the tool's name, its `inputSchema`, the optional
 * `transport`, `description` and `example`). A tool is the pair (endpoint, tool name): several
 * tools share one endpoint.
 *
 * The spec's field is `tool`; the official @x402/extensions (2.27) declares and validates
 * `toolName`. Both are read; when both are present they must agree, else the listing is not read.
 */
import { z } from "zod";
import { readInputSchema } from "./mcp-input-schema";
import { sanitizeServiceText } from "./service-text";

export const MCP_TRANSPORTS = ["streamable-http", "sse"] as const;
export type McpTransport = (typeof MCP_TRANSPORTS)[number];

export type McpToolContract = {
  toolName: string;
  transport: McpTransport;
  /** The JSON Schema of the tool's `arguments`, bounded (mcp-input-schema.ts). */
  inputSchema: Record<string, unknown>;
  description?: string;
  /** Example arguments, as the listing gave them (bounded text). */
  example?: string;
  outputExample?: string;
};

/** MCP tool names: 1–128 characters of letters, digits, `_`, `-` and `.` (the MCP spec's rule). */
export const MCP_TOOL_NAME = /^[A-Za-z0-9_.-]{1,128}$/;

const AnyRecord = z.record(z.string(), z.unknown());

const McpInput = z.looseObject({
  type: z.literal("mcp"),
  toolName: z.string().optional().catch(undefined),
  tool: z.string().optional().catch(undefined),
  description: z.string().optional().catch(undefined),
  // Absent means Streamable HTTP (the bazaar spec's default); an unknown transport is not callable.
  transport: z.string().optional(),
  inputSchema: z.unknown(),
  example: z.unknown().optional(),
});

const Info = z.looseObject({
  input: z.unknown(),
  output: z.looseObject({ example: z.unknown().optional() }).optional().catch(undefined),
});

/** The MCP tool a discovered resource declares, or undefined when it declares none (or one not callable). */
export function readMcpContract(resource: { extensions?: unknown; discoveryInfo?: unknown; toolName?: unknown }): McpToolContract | undefined {
  const extensions = AnyRecord.safeParse(resource.extensions);
  const bazaar = AnyRecord.safeParse(extensions.success ? extensions.data.bazaar : undefined);
  // The 2.10-era facilitators list the declaration as top-level `discoveryInfo`, the tool name beside it.
  const info = Info.safeParse(bazaar.success ? bazaar.data.info : resource.discoveryInfo);
  if (!info.success) return undefined;
  const input = McpInput.safeParse(info.data.input);
  if (!input.success) return undefined;
  const named = [input.data.toolName, input.data.tool, bazaar.success ? undefined : resource.toolName].filter(
    (value): value is string => typeof value === "string",
  );
  const [toolName] = named;
  if (toolName === undefined || !MCP_TOOL_NAME.test(toolName) || named.some((other) => other !== toolName)) return undefined;
  const transport = input.data.transport ?? "streamable-http";
  if (!(MCP_TRANSPORTS as readonly string[]).includes(transport)) return undefined;
  const inputSchema = readInputSchema(input.data.inputSchema);
  if (!inputSchema) return undefined;
  const contract: McpToolContract = { toolName, transport: transport as McpTransport, inputSchema };
  const description = input.data.description === undefined ? "" : sanitizeServiceText(input.data.description, 300);
  if (description) contract.description = description;
  if (input.data.example !== undefined) contract.example = exampleText(input.data.example, 200);
  if (info.data.output?.example !== undefined) contract.outputExample = exampleText(info.data.output.example, 300);
  return contract;
}

/** The key a tool is known by: its endpoint (query ignored) and its name. */
export function mcpToolKey(endpoint: string, toolName: string): string {
  let base = endpoint;
  try {
    const url = new URL(endpoint);
    base = `${url.origin}${url.pathname}`;
  } catch {
    // kept as given
  }
  return `${base}\n${toolName}`;
}

function exampleText(value: unknown, maxChars: number): string {
  let text: string;
  try {
    text = typeof value === "string" ? value : (JSON.stringify(value) ?? "");
  } catch {
    text = "";
  }
  return sanitizeServiceText(text, maxChars);
}
