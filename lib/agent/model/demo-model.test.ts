import type { LanguageModelV4Prompt } from "@ai-sdk/provider";
import { describe, expect, it } from "vitest";
import { CATALOGUE, entry, FORECAST, GUIDES, TRANSLATOR } from "../../../tests/support/demo-listings";
import { readInputContract } from "../../x402/read-input-contract";
import { decide } from "./demo-model";
import type { ServiceEntry } from "./listing-inputs";

type Step = { tool: string; input: Record<string, unknown>; result: unknown };

/** A turn as the chat sends it to the model: the user's words, then each tool call and its result. */
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

const found = (services: readonly ServiceEntry[]) => ({ services, currency: "USDC" });
const search = (query: string | undefined, services: readonly ServiceEntry[]): Step => ({
  tool: "discover_services",
  input: query ? { query } : {},
  result: found(services),
});
const paid = {
  status: "paid",
  service: "City Guide: Oslo museums",
  amountUsdc: "0.004",
  txHash: `0x${"ab".repeat(32)}`,
  result: { data: { picks: ["The Old Observatory in Oslo"] } },
};

describe("the offline demo model's turn", () => {
  it("searches for a request in the user's words, calls the listing that fits, then answers with what it assumed", () => {
    const text = "What are the best museums in Oslo?";
    expect(decide(turn(text))).toEqual({ type: "tool", toolName: "discover_services", input: { query: text } });

    const afterSearch = decide(turn(text, [search(text, CATALOGUE)]));
    expect(afterSearch).toEqual({
      type: "tool",
      toolName: "call_paid_service",
      input: { url: "https://api.example.test/guides/oslo/museums?days=2", method: "GET" },
    });

    const answer = decide(
      turn(text, [search(text, CATALOGUE), { tool: "call_paid_service", input: (afterSearch as { input: Record<string, unknown> }).input, result: paid }]),
    );
    expect(answer.type).toBe("text");
    const said = (answer as { text: string }).text;
    expect(said).toContain("Offline demo model");
    expect(said).toContain("I chose **City Guide: Oslo museums** (0.004 USDC per call)");
    expect(said).toMatch(/\*\*days\*\* = “2”: you did not say \(Length of the stay in days, 1 to 7\), so I assumed the service's own example/);
    expect(said).toContain("I paid **0.004 USDC**");
    expect(said).toContain("The Old Observatory in Oslo");
  });

  it("says where a value came from when the request gave it", () => {
    const text = "Is it raining in Bergen?";
    const steps = [search(text, [FORECAST])];
    expect(decide(turn(text, steps))).toMatchObject({ input: { url: "https://api.example.test/forecast?place=Bergen" } });
    const answer = decide(turn(text, [...steps, { tool: "call_paid_service", input: {}, result: { ...paid, service: "Sky Forecasts" } }]));
    expect((answer as { text: string }).text).toContain("**place** = “Bergen”, from your message");
  });

  it("when nothing fits, searches again in plainer words, then looks through the list, then says so with the closest listings", () => {
    const text = "Book me a flight to Oslo";
    const first = search(text, GUIDES.slice(0, 2));
    expect(decide(turn(text, [first]))).toEqual({ type: "tool", toolName: "discover_services", input: { query: "book flight oslo" } });
    const second = search("book flight oslo", GUIDES.slice(0, 2));
    expect(decide(turn(text, [first, second]))).toEqual({ type: "tool", toolName: "discover_services", input: {} });
    const answer = decide(turn(text, [first, second, search(undefined, CATALOGUE)]));
    const said = (answer as { text: string }).text;
    expect(said).toContain(
      "I searched the Bazaar for “Book me a flight to Oslo”, then for “book flight oslo”, and looked through its list: nothing listed fits this request, so I did not call or pay anything.",
    );
    expect(said).toContain("- **City Guide: Oslo museums**: 0.004 USDC per call");
  });

  it("stops searching as soon as something fits", () => {
    const text = "umbrella needed in Oslo?";
    expect(decide(turn(text, [search(text, [GUIDES[0]!, FORECAST])]))).toMatchObject({
      type: "tool",
      toolName: "call_paid_service",
      input: { url: "https://api.example.test/forecast?place=Oslo" },
    });
  });

  it("asks for what it cannot tell or assume, and pays nothing", () => {
    const text = "Translate something for me";
    const answer = decide(turn(text, [search(text, [TRANSLATOR])]));
    expect(answer.type).toBe("text");
    expect((answer as { text: string }).text).toMatch(
      /\*\*Lingo\*\* \(0\.01 USDC per call\) fits this request, but it needs values I cannot tell[\s\S]*- \*\*to\*\*: Target language code[\s\S]*Nothing was paid\./,
    );
  });

  it("lists and compares without calling anything", () => {
    expect(decide(turn("Compare the prices of all services"))).toEqual({ type: "tool", toolName: "discover_services", input: {} });
    const answer = decide(turn("Compare the prices of all services", [search(undefined, CATALOGUE)]));
    expect((answer as { text: string }).text).toMatch(/I found 12 paid services, cheapest first:\n\n- \*\*Fortune Cookie\*\*: 0\.001 USDC/);
  });

  it("helps, hears a declined payment, and reports a discovery that failed", () => {
    expect((decide(turn("hello")) as { text: string }).text).toContain("I am the offline demo agent");
    expect((decide(turn("I declined the payment of 0.01 USDC to Sky Forecasts.")) as { text: string }).text).toContain(
      "nothing was signed and nothing was paid",
    );
    const failed = decide(
      turn("weather in Oslo", [
        { tool: "discover_services", input: { query: "weather in Oslo" }, result: { error: "Service discovery is unavailable right now." } },
      ]),
    );
    expect((failed as { text: string }).text).toContain("Service discovery is unavailable right now. Nothing was paid.");
  });

  it("is deterministic: the same turn, the same decision", () => {
    const text = "museums in Rome for 3 days";
    const steps = [search(text, CATALOGUE)];
    expect(decide(turn(text, steps))).toEqual(decide(turn(text, steps)));
    expect(decide(turn(text, steps))).toMatchObject({ input: { url: "https://api.example.test/guides/rome/museums?days=3" } });
  });

  describe("an HTTP listing whose bazaar schema declares a field's set (`enum`), and nowhere else", () => {
    // Read as discovery reads it, then shown as discover_services shows it: the set is in the usage line only.
    const rowsListing = (dataset: { required: boolean; example?: string }) => {
      const schema = {
        properties: { rows: { type: "integer" }, dataset: { type: "string", enum: ["sales", "traffic"], description: "Which dataset to read" } },
        required: ["rows", ...(dataset.required ? ["dataset"] : [])],
      };
      const queryParams = { rows: 12, ...(dataset.example === undefined ? {} : { dataset: dataset.example }) };
      const contract = readInputContract({
        x402Version: 2,
        accepts: [{}],
        extensions: {
          bazaar: { info: { input: { type: "http", method: "GET", queryParams } }, schema: { properties: { input: { properties: { queryParams: schema } } } } },
        },
      });
      return entry({
        name: "Row Source",
        path: "/data/rows",
        price: "0.1",
        description: "Rows of a dataset, billed per row.",
        tags: ["data", "rows", "dataset"],
        contract,
      });
    };
    const text = "20 rows of the stations dataset";

    it("asks for a required one the request names nothing of the set for, naming the set: no call, nothing paid", () => {
      const answer = decide(turn(text, [search(text, [rowsListing({ required: true }), ...CATALOGUE])]));
      expect(answer.type).toBe("text");
      expect((answer as { text: string }).text).toContain("- **dataset**: Which dataset to read (one of: sales, traffic)\n");
      expect((answer as { text: string }).text).toContain("Nothing was paid.");
      expect(JSON.stringify(answer)).not.toContain("dataset=stations");
    });

    it("uses the service's example when it is in the set, never the request's word outside it", () => {
      const answer = decide(turn(text, [search(text, [rowsListing({ required: true, example: "sales" }), ...CATALOGUE])]));
      expect(answer).toEqual({
        type: "tool",
        toolName: "call_paid_service",
        input: { url: "https://api.example.test/data/rows?rows=20&dataset=sales", method: "GET" },
      });
      const named = decide(turn("20 rows of the traffic dataset", [search(text, [rowsListing({ required: true }), ...CATALOGUE])]));
      expect(named).toMatchObject({ input: { url: "https://api.example.test/data/rows?rows=20&dataset=traffic" } });
    });
  });

  it("asks which value, naming the set, for a required input the request names none of: no call, nothing paid", () => {
    const regions = entry({
      name: "Region Rows",
      path: "/rows/by-region",
      price: "0.05",
      description: "Rows of sales data for one region.",
      tags: ["rows", "sales", "region"],
      contract: { method: "GET", query: [{ name: "region", type: "string", required: true, description: "Which region, one of: north, south" }], path: [] },
    });
    const text = "sales rows for the west region";
    const answer = decide(turn(text, [search(text, [regions, ...CATALOGUE])]));
    expect(answer.type).toBe("text");
    expect((answer as { text: string }).text).toContain("- **region**: Which region, one of: north, south\n");
    expect((answer as { text: string }).text).toContain("Nothing was paid.");
    expect(decide(turn("sales rows for the south region", [search(text, [regions, ...CATALOGUE])]))).toMatchObject({
      input: { url: "https://api.example.test/rows/by-region?region=south" },
    });
  });
});
