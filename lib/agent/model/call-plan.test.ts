import { describe, expect, it } from "vitest";
import { COINS, entry, EQUITIES, FORECAST, FORTUNE, GUIDES, HEADLINES, KEYWORDS, RECORDS, TRANSLATOR } from "../../../tests/support/demo-listings";
import type { ParameterSpec } from "../../x402/input-contract";
import { planCall, type CallPlan } from "./call-plan";
import type { ServiceEntry } from "./listing-inputs";
import { readRequest } from "./request-reading";

function plan(listing: ServiceEntry, request: string): CallPlan {
  return planCall(listing, readRequest(request));
}

function sources(result: CallPlan): Record<string, string> {
  return result.ok ? Object.fromEntries(result.inputs.map((input) => [input.field.name, `${String(input.value)} (${input.from})`])) : {};
}

describe("planCall", () => {
  it("fills a query parameter with the place the request names", () => {
    const result = plan(FORECAST, "Is it raining in São Paulo?");
    expect(result).toMatchObject({ ok: true, call: { method: "GET", url: "https://api.example.test/forecast?place=S%C3%A3o+Paulo" } });
    expect(sources(result)).toEqual({ place: "São Paulo (request)" });
  });

  it("takes the service's example for what the request does not say, and records it as assumed", () => {
    const result = plan(GUIDES[0]!, "Oslo museums please");
    expect(result).toMatchObject({ ok: true, call: { url: "https://api.example.test/guides/oslo/museums?days=2" } });
    expect(sources(result)).toEqual({ days: "2 (example)" });
  });

  it("reads a number by its unit, a week as seven days, and keeps it within the declared range", () => {
    expect(sources(plan(GUIDES[0]!, "museums in Oslo for a 4 day trip"))).toEqual({ days: "4 (request)" });
    expect(sources(plan(GUIDES[0]!, "museums in Oslo for a week"))).toEqual({ days: "7 (request)" });
    expect(sources(plan(GUIDES[0]!, "museums in Oslo for 30 days"))).toEqual({ days: "7 (clamped)" });
  });

  it("fills a route template's path parameter from a ticker", () => {
    expect(plan(EQUITIES, "What's the stock quote for ACME?")).toMatchObject({
      ok: true,
      call: { method: "GET", url: "https://api.example.test/equities/ACME" },
    });
    // Without one, the example: a template is never called unfilled.
    expect(plan(EQUITIES, "Get me a stock quote")).toMatchObject({ ok: true, call: { url: "https://api.example.test/equities/XYZ" } });
  });

  it("takes a coin's symbol for a coin service, named in words or as a ticker", () => {
    expect(plan(COINS, "How much is ethereum?")).toMatchObject({ call: { url: "https://api.example.test/coins/price?symbol=ETH" } });
    expect(plan(COINS, "SOL price")).toMatchObject({ call: { url: "https://api.example.test/coins/price?symbol=SOL" } });
  });

  it("puts the payload in the body's text field, the number in its count, and keeps the example's other fields", () => {
    const result = plan(KEYWORDS, "Give me 3 keywords for this text: Cheap solar power changes grids.");
    expect(result).toMatchObject({
      ok: true,
      call: { method: "POST", url: "https://api.example.test/text/keywords", body: { text: "Cheap solar power changes grids.", limit: 3 } },
    });
    expect(plan(KEYWORDS, "keywords please")).toMatchObject({ call: { body: { text: "Rivers and lakes freeze in winter.", limit: 5 } } });
  });

  it("puts the subject after about/on into a topic parameter, or what the listing does not explain", () => {
    expect(plan(HEADLINES, "Any headlines about the Mars mission?")).toMatchObject({ call: { url: "https://api.example.test/headlines?topic=Mars+mission" } });
    expect(plan(HEADLINES, "latest tech headlines")).toMatchObject({ call: { url: "https://api.example.test/headlines?topic=tech" } });
  });

  it("makes an id from a number after a word like the id's own prefix", () => {
    expect(plan(RECORDS, "Show me record rec-12")).toMatchObject({ call: { url: "https://api.example.test/records/rec-12" } });
    expect(plan(RECORDS, "Pull up record 3 from the archive")).toMatchObject({ call: { url: "https://api.example.test/records/rec-3" } });
  });

  it("reads a request phrased as the listing's description and an input", () => {
    expect(plan(FORECAST, "Current conditions and a short forecast for a town or city. for Bergen")).toMatchObject({
      call: { url: "https://api.example.test/forecast?place=Bergen" },
    });
    expect(plan(KEYWORDS, "Finds the main keywords of a text. for Ice and snow and ice")).toMatchObject({ call: { body: { text: "Ice and snow and ice" } } });
  });

  it("asks rather than guesses a required input with neither a value in the request nor an example", () => {
    expect(plan(TRANSLATOR, "Translate something for me")).toEqual({
      ok: false,
      missing: [expect.objectContaining({ name: "text" }), expect.objectContaining({ name: "to" })],
    });
    expect(plan(TRANSLATOR, "Translate 'good night' into Italian")).toMatchObject({ ok: true, call: { body: { text: "good night", to: "it" } } });
  });

  it("calls a listing that takes nothing as it is listed", () => {
    expect(plan(FORTUNE, "a fortune please")).toEqual({ ok: true, call: { url: "https://api.example.test/fortune", method: "GET" }, inputs: [] });
  });
});

describe("planCall with inputs given by name, as suggestions word them", () => {
  it("reads “with <input> <value> and <input> <value>”", () => {
    expect(plan(KEYWORDS, "Buy Word Miner with text Ice and snow melt in spring and limit 4")).toMatchObject({
      call: { body: { text: "Ice and snow melt in spring", limit: 4 } },
    });
    expect(plan(GUIDES[0]!, "Buy City Guide Oslo museums with days 3")).toMatchObject({ call: { url: "https://api.example.test/guides/oslo/museums?days=3" } });
    expect(plan(FORECAST, "place: Tromsø, please")).toMatchObject({ call: { url: "https://api.example.test/forecast?place=Troms%C3%B8" } });
  });

  it("does not take a word after the input's name for a value of another kind", () => {
    expect(sources(plan(FORECAST, "Oslo place guide"))).toEqual({ place: "Oslo (request)" });
  });
});

describe("planCall for inputs that take only some values", () => {
  const rows = (dataset: Partial<ParameterSpec>) =>
    entry({
      name: "Row Counter",
      path: "/meter/rows",
      price: "0.1",
      description: "Rows of a dataset, billed per row (upto).",
      tags: ["data", "rows", "metered"],
      contract: {
        method: "GET",
        query: [
          { name: "rows", type: "integer", required: true, description: "How many rows, 1 to 200", example: "12" },
          { name: "dataset", type: "string", required: false, description: "Which dataset: sales (default) or stations", example: "sales", ...dataset },
        ],
        path: [],
      },
    });
  const coins = entry({
    name: "Coin Board",
    path: "/coins/price",
    price: "0.02",
    description: "Spot prices for coins in US dollars.",
    tags: ["crypto", "price"],
    contract: { method: "GET", query: [{ name: "symbol", type: "string", required: true, description: "Coin, one of: BTC, ETH, SOL" }], path: [] },
  });

  it("takes the value of the set the request names, never a phrase of the request", () => {
    expect(plan(rows({}), "Get 20 rows of the weather station dataset")).toMatchObject({
      call: { url: "https://api.example.test/meter/rows?rows=20&dataset=stations" },
    });
    expect(plan(rows({}), "5 rows of sales data please")).toMatchObject({ call: { url: "https://api.example.test/meter/rows?rows=5&dataset=sales" } });
  });

  it("takes the service's example when the request names none of the set, and only an example in the set", () => {
    expect(sources(plan(rows({}), "30 rows from the traffic dataset"))).toEqual({ rows: "30 (request)", dataset: "sales (example)" });
    // An example outside its own set is no value to assume: an optional input is left out.
    expect(plan(rows({ example: "traffic" }), "30 rows from the traffic dataset")).toMatchObject({
      call: { url: "https://api.example.test/meter/rows?rows=30" },
    });
  });

  it("asks, before any call, for a required input whose set the request names nothing of", () => {
    expect(plan(rows({ required: true, example: undefined }), "30 rows from the traffic dataset")).toEqual({
      ok: false,
      missing: [expect.objectContaining({ name: "dataset" })],
    });
  });

  it("maps a coin named in words to the symbol the set holds", () => {
    expect(plan(coins, "What's the price of one Solana?")).toMatchObject({ call: { url: "https://api.example.test/coins/price?symbol=SOL" } });
    expect(plan(coins, "price of ethereum")).toMatchObject({ call: { url: "https://api.example.test/coins/price?symbol=ETH" } });
    expect(plan(coins, "price of dogecoin")).toMatchObject({ ok: false });
  });
});
