import { describe, expect, it } from "vitest";
import { entry, EQUITIES, FORECAST, FORTUNE, KEYWORDS, TRANSLATOR } from "../../../tests/support/demo-listings";
import type { InputContract } from "../../x402/input-contract";
import { entriesOf, inputsOf } from "./listing-inputs";

describe("inputsOf reads back what discover_services says of a listing", () => {
  it("a query parameter: name, required, description and example", () => {
    expect(inputsOf(FORECAST)).toEqual({
      method: "GET",
      template: "https://api.example.test/forecast",
      fields: [{ name: "place", in: "query", required: true, type: "string", description: "Town or city name", example: "Oslo" }],
    });
  });

  it("a path parameter of a route template", () => {
    expect(inputsOf(EQUITIES)).toMatchObject({
      template: "https://api.example.test/equities/:ticker",
      fields: [{ name: "ticker", in: "path", required: true, description: "Stock ticker symbol", example: "XYZ" }],
    });
  });

  it("a JSON body: its fields, a number example kept a number, descriptions with commas", () => {
    expect(inputsOf(KEYWORDS)).toEqual({
      method: "POST",
      template: "https://api.example.test/text/keywords",
      bodyType: "json",
      fields: [
        { name: "text", in: "body", required: true, type: "string", description: "The text to read", example: "Rivers and lakes freeze in winter." },
        { name: "limit", in: "body", required: false, type: "integer", description: "How many keywords, 1 to 10", example: 5 },
      ],
    });
  });

  it("a body without an example, from the usage line alone", () => {
    expect(inputsOf(TRANSLATOR).fields).toEqual([
      { name: "text", in: "body", required: true, type: "string", description: "Text to translate" },
      { name: "to", in: "body", required: true, type: "string", description: "Target language code" },
    ]);
  });

  it("a declared set of values (`enum`) from the usage line, strings and numbers, in the query and in a body", () => {
    const contract: InputContract = {
      method: "POST",
      query: [{ name: "dataset", required: true, choices: ["sales", "traffic"], description: "Which dataset" }],
      path: [],
      body: {
        type: "json",
        fields: [
          { name: "level", required: false, choices: [1, 2, "3"] },
          { name: "note", type: "string", required: false },
        ],
      },
    };
    expect(inputsOf(entry({ name: "Sets", path: "/sets", price: "0.01", description: "Sets.", contract })).fields).toEqual([
      { name: "dataset", in: "query", required: true, description: "Which dataset", choices: ["sales", "traffic"] },
      { name: "level", in: "body", required: false, choices: [1, 2, "3"] },
      { name: "note", in: "body", required: false, type: "string" },
    ]);
  });

  it("a listing that declares nothing takes nothing", () => {
    expect(inputsOf(FORTUNE)).toEqual({ method: "GET", template: "https://api.example.test/fortune", fields: [] });
  });

  it("reads a tool result leniently: unreadable entries are left out", () => {
    expect(entriesOf({ services: [FORECAST, { name: 42 }, "junk", { resource: "https://x.test/a", tags: "not a list" }] })).toEqual([
      FORECAST,
      { resource: "https://x.test/a" },
    ]);
    expect(entriesOf({ error: "Service discovery is unavailable right now." })).toEqual([]);
  });
});
