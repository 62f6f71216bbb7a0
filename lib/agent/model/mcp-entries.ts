/**
 * The paid MCP tools of a `discover_services` result (its `mcpTools`, beside the HTTP services)
 * as listings the offline demo model ranks and calls like any other: the tool's name, price,
 * description and tags, and its inputs read from the input schema the listing shows (each
 * property a field of the arguments object; `required` as declared; the listing's example
 * arguments as the examples). A tool whose schema the result does not show (too long to show)
 * is left out: there is nothing to fill its arguments from. Everything is the listing's own text.
 */
import { z } from "zod";
import type { InputField, ListingInputs, McpTarget, ServiceEntry } from "./listing-inputs";

const text = (max: number) => z.string().max(max).optional().catch(undefined);

const Property = z.looseObject({
  type: z
    .union([z.string().max(20), z.array(z.string().max(20)).max(5)])
    .optional()
    .catch(undefined),
  description: text(300),
  enum: z.array(z.unknown()).max(50).optional().catch(undefined),
});

const McpToolEntry = z.looseObject({
  name: text(200),
  endpoint: z.string().max(2048),
  tool: z.string().max(128),
  description: text(1000),
  price: text(40),
  tags: z.array(z.string().max(64)).max(20).optional().catch(undefined),
  inputSchema: z.looseObject({
    properties: z.record(z.string().max(64), z.unknown()).optional().catch(undefined),
    required: z.array(z.string()).max(50).optional().catch(undefined),
  }),
  exampleArguments: z.record(z.string(), z.unknown()).optional().catch(undefined),
});

/** The MCP tools of a `discover_services` result, as entries; anything unreadable is left out. */
export function mcpEntriesOf(value: unknown): ServiceEntry[] {
  const listed = z.looseObject({ mcpTools: z.array(z.unknown()).max(100) }).safeParse(value);
  if (!listed.success) return [];
  return listed.data.mcpTools.flatMap((raw) => {
    const tool = McpToolEntry.safeParse(raw);
    if (!tool.success) return [];
    const { name, endpoint, description, price, tags, inputSchema, exampleArguments } = tool.data;
    let resource: URL;
    try {
      resource = new URL(endpoint);
    } catch {
      return [];
    }
    resource.hash = encodeURIComponent(tool.data.tool);
    const required = new Set(inputSchema.required ?? []);
    const fields: InputField[] = Object.entries(inputSchema.properties ?? {}).map(([field, declared]) => {
      const property = Property.safeParse(declared);
      const type = property.success ? (Array.isArray(property.data.type) ? property.data.type[0] : property.data.type) : undefined;
      const example = exampleArguments?.[field] ?? (property.success ? property.data.enum?.[0] : undefined);
      return {
        name: field,
        in: "body",
        required: required.has(field),
        ...(type ? { type } : {}),
        ...(property.success && property.data.description ? { description: property.data.description } : {}),
        ...(example === undefined ? {} : { example }),
        ...(property.success && property.data.enum ? { choices: property.data.enum } : {}),
      };
    });
    const inputs: ListingInputs = { method: "POST", template: endpoint, fields, bodyType: "json" };
    const mcp: McpTarget = { endpoint, tool: tool.data.tool, inputs };
    return [{ name, resource: resource.toString(), price, description, tags, mcp }];
  });
}
