/**
 * The arguments a model chose, against an MCP tool's input schema: what is refused before any
 * call, in words a model can act on, and what the subset deliberately lets through.
 */
import { describe, expect, it } from "vitest";
import { checkArguments, describeInputSchema, readInputSchema } from "./mcp-input-schema";

const translate = {
  type: "object",
  properties: {
    text: { type: "string", minLength: 1, maxLength: 10, description: "The text" },
    target: { type: "string", enum: ["fr", "es"] },
    count: { type: "integer", minimum: 1, maximum: 3 },
    tags: { type: "array", items: { type: "string" }, maxItems: 2 },
    options: { type: "object", properties: { formal: { type: "boolean" } }, required: ["formal"], additionalProperties: false },
  },
  required: ["text", "target"],
  additionalProperties: false,
};

describe("checkArguments", () => {
  it("accepts arguments that fit", () => {
    expect(checkArguments(translate, { text: "hello", target: "fr", count: 2, tags: ["a"], options: { formal: true } })).toEqual([]);
  });

  it("names each missing required field, wrong type, value outside an enum, and unknown field", () => {
    expect(checkArguments(translate, {})).toEqual(["text is required", "target is required"]);
    expect(checkArguments(translate, { text: 5, target: "de" })).toEqual(["text must be a string, not a number", 'target must be one of "fr", "es"']);
    expect(checkArguments(translate, { text: "hi", target: "fr", colour: "red" })).toEqual(["colour is not a parameter of this tool"]);
  });

  it("checks lengths, bounds, integers, array items and nested objects", () => {
    expect(checkArguments(translate, { text: "", target: "fr" })).toEqual(["text must be at least 1 characters"]);
    expect(checkArguments(translate, { text: "x".repeat(11), target: "fr" })).toEqual(["text must be at most 10 characters"]);
    expect(checkArguments(translate, { text: "a", target: "fr", count: 1.5 })).toEqual(["count must be an integer, not a number"]);
    expect(checkArguments(translate, { text: "a", target: "fr", count: 9 })).toEqual(["count must be at most 3"]);
    expect(checkArguments(translate, { text: "a", target: "fr", tags: ["a", 2] })).toEqual(["tags[1] must be a string, not a number"]);
    expect(checkArguments(translate, { text: "a", target: "fr", tags: ["a", "b", "c"] })).toEqual(["tags must have at most 2 items"]);
    expect(checkArguments(translate, { text: "a", target: "fr", options: { loud: 1 } })).toEqual([
      "options.formal is required",
      "options.loud is not a parameter of this tool",
    ]);
  });

  it("lets through what the schema does not restrict (extra fields without additionalProperties: false)", () => {
    expect(checkArguments({ type: "object", properties: { a: { type: "string" } } }, { a: "x", b: 1 })).toEqual([]);
    expect(checkArguments({ type: "object" }, { anything: [1, 2] })).toEqual([]);
  });

  it("reports a bounded number of problems however many the schema could find", () => {
    const many = { type: "object", required: Array.from({ length: 50 }, (_, index) => `f${index}`) };
    expect(checkArguments(many, {})).toHaveLength(8);
  });
});

describe("readInputSchema", () => {
  it("takes an object schema, and no schema of another type, or one too large to be an argument list", () => {
    expect(readInputSchema(translate)).toBe(translate);
    expect(readInputSchema({ type: "string" })).toBeUndefined();
    expect(readInputSchema([translate])).toBeUndefined();
    expect(
      readInputSchema({ type: "object", properties: Object.fromEntries(Array.from({ length: 1_000 }, (_, index) => [`f${index}`, { type: "string" }])) }),
    ).toBeUndefined();
  });
});

describe("describeInputSchema", () => {
  it("says the arguments in one line: names, types or choices, required, descriptions", () => {
    expect(describeInputSchema(translate)).toBe(
      'arguments {"text": string, required: The text; "target": one of "fr", "es", required; "count": integer; "tags": array; "options": object}',
    );
  });
});
