import type { LanguageModelV4Prompt } from "@ai-sdk/provider";
import { describe, expect, it } from "vitest";
import { CATALOGUE, entry, EQUITIES, FORECAST, KEYWORDS } from "../../../tests/support/demo-listings";
import { decide } from "./demo-model";
import type { ServiceEntry } from "./listing-inputs";
import { listingFor } from "./named-call-turn";

type Step = { tool: string; input: Record<string, unknown>; result: unknown };

function turn(text: string, steps: Step[] = []): LanguageModelV4Prompt {
  const prompt: LanguageModelV4Prompt = [{ role: "user", content: [{ type: "text", text }] }];
  steps.forEach((step, index) => {
    prompt.push({ role: "assistant", content: [{ type: "tool-call", toolCallId: `c${index}`, toolName: step.tool, input: step.input }] });
    prompt.push({
      role: "tool",
      content: [{ type: "tool-result", toolCallId: `c${index}`, toolName: step.tool, output: { type: "json", value: step.result as never } }],
    });
  });
  return prompt;
}

const search = (query: string | undefined, services: readonly ServiceEntry[]): Step => ({
  tool: "discover_services",
  input: query ? { query } : {},
  result: { services, currency: "USDC" },
});

/** The call the model makes for a message after one search that found `services`. */
function callFor(message: string, services: readonly ServiceEntry[] = CATALOGUE) {
  const first = decide(turn(message));
  expect(first).toMatchObject({ type: "tool", toolName: "discover_services" });
  const query = (first as { input: { query?: string } }).input.query;
  return decide(turn(message, [search(query, services)]));
}

/** A metered listing: its price is a ceiling, its call like any other. */
const METERED_ROWS = entry({
  name: "Row Counter",
  path: "/meter/rows",
  price: "0.1",
  description: "Rows of a dataset, billed per row (upto).",
  tags: ["data", "rows", "metered"],
  contract: {
    method: "GET",
    query: [
      { name: "rows", type: "integer", required: true, description: "How many rows, 1 to 200", example: "12" },
      { name: "dataset", type: "string", required: false, description: "Which dataset: sales (default) or stations", example: "sales" },
    ],
    path: [],
  },
});

describe("a URL the user gives (offline demo model)", () => {
  it("searches by the URL's own path words first", () => {
    expect(decide(turn("Call https://api.example.test/meter/rows?rows=12&dataset=sales"))).toEqual({
      type: "tool",
      toolName: "discover_services",
      input: { query: "meter row" },
    });
  });

  it.each([
    ["Call URL", "Call https://api.example.test/forecast?place=Lisbon"],
    ["Get URL for me", "Get https://api.example.test/forecast?place=Porto for me"],
    ["Please fetch URL", "Please fetch https://api.example.test/forecast?place=Bergen."],
    ["the URL alone", "https://api.example.test/forecast?place=Stavanger"],
    ["another city in the words", "What's the weather in Paris? Call https://api.example.test/forecast?place=Lisbon"],
  ])("%s: calls the path and query exactly as written", (_, message) => {
    const url = /https:\S+?(?=\.?$|\s)/.exec(message)![0];
    expect(callFor(message)).toEqual({ type: "tool", toolName: "call_paid_service", input: { url, method: "GET" } });
  });

  it("keeps a metered service's query as written: no word of the message becomes a dataset", () => {
    const url = "https://api.example.test/meter/rows?rows=12&dataset=sales";
    expect(callFor(`Call ${url}`, [METERED_ROWS, ...CATALOGUE])).toEqual({ type: "tool", toolName: "call_paid_service", input: { url, method: "GET" } });
  });

  it("keeps the user's value in a path template's parameter", () => {
    const url = "https://api.example.test/equities/NVDA";
    expect(callFor(`Get ${url} for me`)).toEqual({ type: "tool", toolName: "call_paid_service", input: { url, method: "GET" } });
  });

  it("sends the body the user wrote, with the method the listing declares or the user names", () => {
    const url = "https://api.example.test/text/keywords";
    expect(callFor(`POST ${url} with the JSON body {"text": "Wind farms move offshore.", "limit": 2}`)).toEqual({
      type: "tool",
      toolName: "call_paid_service",
      input: { url, method: "POST", body: { text: "Wind farms move offshore.", limit: 2 } },
    });
    expect(callFor(`Call ${url}\n\`\`\`json\n{"text": "Batteries smooth the cycle."}\n\`\`\``)).toMatchObject({
      input: { url, method: "POST", body: { text: "Batteries smooth the cycle." } },
    });
  });

  it("calls a URL no listing names as written, and says it is unlisted", () => {
    const url = "https://elsewhere.example.test/forecast?place=Lisbon";
    expect(callFor(`Call ${url}`)).toEqual({ type: "tool", toolName: "call_paid_service", input: { url, method: "GET" } });
    const refused = { status: "refused", message: "Not called: this deployment calls URLs that discovery did not list only for callers it knows." };
    const answer = decide(turn(`Call ${url}`, [search("forecast", CATALOGUE), { tool: "call_paid_service", input: { url, method: "GET" }, result: refused }]));
    expect(answer.type).toBe("text");
    const said = (answer as { text: string }).text;
    expect(said).toContain(`You gave the URL ${url}`);
    expect(said).toContain("No discovery listing names it");
    expect(said).toContain("Nothing was paid. Not called: this deployment calls URLs that discovery did not list only for callers it knows.");
  });

  it("answers that it called the URL the user gave, and what the listing is", () => {
    const url = "https://api.example.test/forecast?place=Lisbon";
    const paid = { status: "paid", service: "Sky Forecasts", amountUsdc: "0.01", txHash: `0x${"ab".repeat(32)}`, result: { data: { place: "Lisbon" } } };
    const answer = decide(
      turn(`What's the weather in Paris? Call ${url}`, [
        search("forecast", CATALOGUE),
        { tool: "call_paid_service", input: { url, method: "GET" }, result: paid },
      ]),
    );
    const said = (answer as { text: string }).text;
    expect(said).toContain(`You gave the URL ${url}, so I called exactly that (GET)`);
    expect(said).toContain("Discovery lists it as **Sky Forecasts** (0.01 USDC per call)");
    expect(said).toContain("I paid **0.01 USDC**");
    expect(said).not.toContain("Paris");
  });
});

describe("listingFor", () => {
  it("matches by origin and path, a template's parameters by any one segment", () => {
    expect(listingFor("https://api.example.test/forecast?place=X", CATALOGUE)).toBe(FORECAST);
    expect(listingFor("https://api.example.test/equities/ACME", CATALOGUE)).toBe(EQUITIES);
    expect(listingFor("https://api.example.test/text/keywords", CATALOGUE)).toBe(KEYWORDS);
    expect(listingFor("https://api.example.test/equities/ACME/more", CATALOGUE)).toBeUndefined();
    expect(listingFor("https://other.example.test/forecast", CATALOGUE)).toBeUndefined();
    expect(listingFor("http://api.example.test/forecast", CATALOGUE)).toBeUndefined();
  });

  it("reads a {param} template like a :param one", () => {
    const braces = { name: "Braces", resource: "https://api.example.test/items/{id}", price: "0.01" };
    expect(listingFor("https://api.example.test/items/42", [braces])).toBe(braces);
  });
});
