/**
 * The bazaar extension's examples, and v1 `outputSchema`, through our reading of a service's
 * declared input: the method, the parameters with their types, whether they are required and
 * their example values, the body, the route; then what that contract lets through `checkCall`.
 */
import { describe, expect, it } from "vitest";
import { describeInputContract, exampleCall } from "@/lib/x402/call-usage";
import { checkCall } from "@/lib/x402/check-call";
import { readInputContract } from "@/lib/x402/read-input-contract";
import * as bazaar from "./fixtures/bazaar";

const v2 = (extension: Record<string, unknown>) => readInputContract({ x402Version: 2, accepts: [{}], extensions: { bazaar: extension } });
const v1 = (outputSchema: Record<string, unknown>) => readInputContract({ x402Version: 1, accepts: [{ scheme: "exact", outputSchema }] });

describe(`${bazaar.bazaarGet.name} (${bazaar.bazaarGet.source})`, () => {
  const contract = v2(bazaar.bazaarGet.value);

  it("reads the declared GET, the required string `city` with its example, and the output example", () => {
    expect(contract).toEqual({
      method: "GET",
      query: [{ name: "city", type: "string", required: true, example: "San Francisco" }],
      path: [],
      outputExample: '{"city":"San Francisco","weather":"foggy","temperature":60}',
    });
  });

  it("makes an example call from the example value, and holds calls to the declaration", () => {
    expect(exampleCall("https://api.example.com/weather", contract!)).toEqual({
      method: "GET",
      url: "https://api.example.com/weather?city=San+Francisco",
      query: ["city"],
    });
    expect(checkCall(contract!, { url: "https://api.example.com/weather", method: "GET" })).toEqual({
      ok: false,
      problems: ['missing query parameter "city"'],
    });
    expect(checkCall(contract!, { url: "https://api.example.com/weather?city=Paris", method: "POST" })).toEqual({
      ok: false,
      problems: ["the service is called with GET, not POST"],
    });
    expect(checkCall(contract!, { url: "https://api.example.com/weather?city=Paris", method: "GET" })).toEqual({ ok: true });
  });
});

describe(`${bazaar.bazaarPost.name} (${bazaar.bazaarPost.source})`, () => {
  const contract = v2(bazaar.bazaarPost.value);

  it("reads POST with a JSON body whose field comes from the example (the schema only says `object`)", () => {
    expect(contract).toEqual({
      method: "POST",
      query: [],
      path: [],
      body: { type: "json", fields: [{ name: "query", required: false, example: "example" }], example: '{"query":"example"}' },
      outputExample: '{"results":[]}',
    });
    expect(describeInputContract(contract!)).toBe('POST JSON body {"query": value, e.g. example} example body {"query":"example"}');
    expect(exampleCall("https://api.example.com/search", contract!)?.body).toEqual({ query: "example" });
  });

  it("refuses a call without a body, or with one that is not JSON", () => {
    expect(checkCall(contract!, { url: "https://api.example.com/search", method: "POST" })).toEqual({ ok: false, problems: ["the service needs a JSON body"] });
    expect(checkCall(contract!, { url: "https://api.example.com/search", method: "POST", body: "query=x" })).toEqual({
      ok: false,
      problems: ["the body is not valid JSON"],
    });
    expect(checkCall(contract!, { url: "https://api.example.com/search", method: "POST", body: '{"query":"x"}' })).toEqual({ ok: true });
  });
});

describe(`${bazaar.bazaarPatchWithQuery.name} (${bazaar.bazaarPatchWithQuery.source})`, () => {
  it("reads PATCH, its query parameter and its form-data body field", () => {
    expect(v2(bazaar.bazaarPatchWithQuery.value)).toEqual({
      method: "PATCH",
      query: [{ name: "draft", required: false, example: "true" }],
      path: [],
      body: { type: "form-data", fields: [{ name: "title", required: false, example: "Quarterly report" }], example: '{"title":"Quarterly report"}' },
    });
  });
});

describe(`${bazaar.bazaarTextBody.name} (${bazaar.bazaarTextBody.source})`, () => {
  it("reads PUT with a text body whose example is the string itself", () => {
    const contract = v2(bazaar.bazaarTextBody.value);
    expect(contract).toEqual({ method: "PUT", query: [], path: [], body: { type: "text", fields: [], example: "Hello, world" } });
    expect(checkCall(contract!, { url: "https://api.example.com/notes", method: "PUT", body: "Hi", contentType: "text/plain; charset=utf-8" })).toEqual({
      ok: true,
    });
    expect(checkCall(contract!, { url: "https://api.example.com/notes", method: "PUT" })).toEqual({ ok: false, problems: ["the service needs a text body"] });
  });
});

describe(`${bazaar.bazaarDelete.name} (${bazaar.bazaarDelete.source})`, () => {
  it("reads DELETE as declared, with its query parameter", () => {
    expect(v2(bazaar.bazaarDelete.value)).toEqual({ method: "DELETE", query: [{ name: "id", required: false, example: "42" }], path: [] });
  });
});

describe(`${bazaar.bazaarHead.name} (${bazaar.bazaarHead.source})`, () => {
  it("reads a declared HEAD as HEAD, and a HEAD call carries no body", () => {
    const contract = v2(bazaar.bazaarHead.value)!;
    expect(contract).toMatchObject({ method: "HEAD" });
    expect(contract.methodInferred).toBeUndefined();
    expect(checkCall(contract, { url: "https://api.example.com/r", method: "GET" })).toEqual({
      ok: false,
      problems: ["the service is called with HEAD, not GET"],
    });
    expect(checkCall(contract, { url: "https://api.example.com/r", method: "HEAD", body: "x", contentType: "text/plain; charset=utf-8" }).ok).toBe(false);
  });
});

describe(`${bazaar.bazaarDynamicRoute.name} (${bazaar.bazaarDynamicRoute.source})`, () => {
  const contract = v2(bazaar.bazaarDynamicRoute.value);

  it("reads the route template and its path parameter with the concrete example value", () => {
    expect(contract).toEqual({
      method: "GET",
      query: [],
      path: [{ name: "userId", type: "string", required: true, example: "123" }],
      routeTemplate: "/users/:userId",
    });
    expect(describeInputContract(contract!)).toBe("GET /users/:userId path userId=<string, required, e.g. 123>");
  });

  it("refuses a call that left the template's placeholder in the path", () => {
    expect(checkCall(contract!, { url: "https://api.example.com/users/:userId", method: "GET" })).toEqual({
      ok: false,
      problems: ["path parameter not filled in: :userId"],
    });
    expect(checkCall(contract!, { url: "https://api.example.com/users/456", method: "GET" })).toEqual({ ok: true });
  });
});

describe(`${bazaar.bazaarMcpTool.name} (${bazaar.bazaarMcpTool.source})`, () => {
  it("is no HTTP contract: an MCP tool is not described as a GET with no parameters", () => {
    expect(v2(bazaar.bazaarMcpTool.value)).toBeUndefined();
  });
});

describe(`${bazaar.v1OutputSchemaGet.name} (${bazaar.v1OutputSchemaGet.source})`, () => {
  it("reads the v1 GET and its query parameters' type names", () => {
    expect(v1(bazaar.v1OutputSchemaGet.value)).toEqual({
      method: "GET",
      query: [
        { name: "city", type: "string", required: false },
        { name: "units", type: "string", required: false },
      ],
      path: [],
      outputExample: '{"type":"object","properties":{"temperature":{"type":"number"}}}',
    });
  });
});

describe(`${bazaar.v1OutputSchemaPost.name} (${bazaar.v1OutputSchemaPost.source})`, () => {
  it("reads the v1 POST body fields: type, required, description; a null output is no example", () => {
    const contract = v1(bazaar.v1OutputSchemaPost.value);
    expect(contract).toEqual({
      method: "POST",
      query: [],
      path: [],
      body: {
        type: "json",
        fields: [
          { name: "query", type: "string", required: true, description: "Search terms" },
          { name: "limit", type: "number", required: false },
        ],
      },
    });
    expect(checkCall(contract!, { url: "https://api.example.com/search", method: "POST", body: '{"limit":3}' })).toEqual({
      ok: false,
      problems: ['missing body field "query"'],
    });
  });
});

describe(`${bazaar.v1OutputSchemaPostNoBodyType.name} (${bazaar.v1OutputSchemaPostNoBodyType.source})`, () => {
  it("keeps the declared body fields, as a JSON body (the reference v1 reading's default)", () => {
    const contract = v1(bazaar.v1OutputSchemaPostNoBodyType.value);
    expect(contract?.body).toEqual({ type: "json", fields: [{ name: "text", type: "string", required: true }] });
    expect(checkCall(contract!, { url: "https://api.example.com/translate", method: "POST" })).toEqual({
      ok: false,
      problems: ['the service needs a JSON body with "text"'],
    });
  });
});

describe("v1 listings as the v1 spec shows them (specs/x402-specification-v1.md §5.1.1: `outputSchema: null`)", () => {
  it("declare no input", () => {
    expect(readInputContract({ x402Version: 1, accepts: [{ scheme: "exact", outputSchema: null }] })).toBeUndefined();
  });
});
