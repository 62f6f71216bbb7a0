import { describe, expect, it } from "vitest";
import { choiceInRequest, choicesOf, sameChoice } from "./field-choices";
import type { InputField } from "./listing-inputs";
import { readRequest } from "./request-reading";

const field = (description: string, extra: Partial<InputField> = {}): InputField => ({ name: "x", in: "query", required: true, description, ...extra });

describe("choicesOf", () => {
  it.each([
    ["Which dataset: sales (default) or stations", ["sales", "stations"]],
    ["Dataset, one of: sales, traffic", ["sales", "traffic"]],
    ["one of a | b | c", ["a", "b", "c"]],
    ["Base currency: USD, EUR, GBP, JPY", ["USD", "EUR", "GBP", "JPY"]],
    ["Size: small, medium, or large.", ["small", "medium", "large"]],
  ])("reads the set a description spells out: %s", (description, expected) => {
    expect(choicesOf(field(description))).toEqual(expected);
  });

  it.each([
    ["City name"],
    ["Ticker symbol, e.g. BTC"],
    ["Coins, e.g.: BTC, ETH"],
    ["Coins such as: BTC, ETH"],
    ["The text to measure: at most 6000 characters, billed per started 100"],
    ["Length of the stay in days, 1 to 7"],
    ["Which dataset: sales"],
  ])("reads no set where there is none: %s", (description) => {
    expect(choicesOf(field(description))).toBeUndefined();
  });

  it("takes a declared enum first", () => {
    expect(choicesOf(field("Which dataset: sales or stations", { choices: ["a", "b"] }))).toEqual(["a", "b"]);
  });
});

describe("the choice a request names", () => {
  const choose = (choices: unknown[], request: string, used: string[] = []) => choiceInRequest(choices, readRequest(request), new Set(used));

  it("is found as written, in another case, or in another word form", () => {
    expect(choose(["sales", "stations"], "20 rows of the weather station dataset")).toBe("stations");
    expect(choose(["sales", "stations"], "SALES rows please")).toBe("sales");
  });

  it("is a coin's symbol for its name, or its name for the symbol", () => {
    expect(choose(["BTC", "ETH", "SOL"], "the price of one Solana")).toBe("SOL");
    expect(choose(["bitcoin", "ethereum"], "price of ETH")).toBe("ethereum");
    expect(sameChoice("ETH", "ether")).toBe(true);
    expect(sameChoice("ETH", "BTC")).toBe(false);
  });

  it("is the earliest named, passing over one another input took", () => {
    expect(choose(["sales", "stations"], "stations or sales")).toBe("stations");
    expect(choose(["sales", "stations"], "stations or sales", ["stations"])).toBe("sales");
  });

  it("is none when the request names none of them", () => {
    expect(choose(["sales", "stations"], "rows from the traffic dataset")).toBeUndefined();
  });
});
