/**
 * Declarations the x402 bazaar spec allows beyond a plain HTTP one: an MCP tool (which is no
 * HTTP contract at all) and v1 body fields declared without a `bodyType`.
 */
import { describe, expect, it } from "vitest";
import { readInputContract } from "./read-input-contract";

describe("readInputContract, by kind of declaration", () => {
  it("reads no contract from an MCP tool's declaration, in v2 or in v1", () => {
    const tool = { type: "mcp", tool: "financial_analysis", inputSchema: { type: "object", properties: { ticker: { type: "string" } } } };
    expect(readInputContract({ x402Version: 2, accepts: [], extensions: { bazaar: { info: { input: tool } } } })).toBeUndefined();
    expect(readInputContract({ x402Version: 1, accepts: [{ outputSchema: { input: tool } }] })).toBeUndefined();
  });

  it("reads `http` in any case, and a declaration with no type, as HTTP", () => {
    expect(readInputContract({ x402Version: 2, accepts: [], extensions: { bazaar: { info: { input: { type: "HTTP", method: "DELETE" } } } } })?.method).toBe(
      "DELETE",
    );
    expect(readInputContract({ x402Version: 2, accepts: [], extensions: { bazaar: { info: { input: { method: "PUT" } } } } })?.method).toBe("PUT");
  });

  it("keeps v1 body fields declared without a bodyType as a JSON body, and multipart as form-data", () => {
    const read = (input: Record<string, unknown>) => readInputContract({ x402Version: 1, accepts: [{ outputSchema: { input: { type: "http", ...input } } }] });
    expect(read({ method: "POST", bodyFields: { text: "string" } })?.body).toEqual({
      type: "json",
      fields: [{ name: "text", type: "string", required: false }],
    });
    expect(read({ method: "PUT", bodyType: "multipart-form-data", bodyFields: { file: "string" } })?.body?.type).toBe("form-data");
    // A GET's fields are no body, and an unknown type is not guessed.
    expect(read({ method: "GET", bodyFields: { text: "string" } })?.body).toBeUndefined();
    expect(read({ method: "POST", bodyType: "binary", bodyFields: { data: "string" } })?.body).toBeUndefined();
  });
});
