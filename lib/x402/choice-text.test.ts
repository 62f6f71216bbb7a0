/** A declared set in the usage line: written so that it reads back as the same values. */
import { describe, expect, it } from "vitest";
import { choicesText, readChoicesText } from "./choice-text";

describe("choicesText and readChoicesText", () => {
  it("writes plain words bare and reads them back with what follows", () => {
    expect(choicesText(["sales", "traffic"])).toBe("one of: sales, traffic");
    expect(readChoicesText("one of: sales, traffic, required, e.g. sales: Which dataset")).toEqual({
      choices: ["sales", "traffic"],
      rest: ", required, e.g. sales: Which dataset",
    });
    expect(readChoicesText("one of: sales, traffic: Which dataset")).toEqual({ choices: ["sales", "traffic"], rest: ": Which dataset" });
    expect(readChoicesText("one of: sales")).toEqual({ choices: ["sales"], rest: "" });
  });

  it("round-trips numbers, number-like strings, `required`, spaces, commas and angle brackets", () => {
    const choices = [10, -2.5, 1e21, "10", "required", "a b", "x, y: z", "<b>", 'say "hi"', "e.g.", "v1.2"];
    const written = choicesText(choices);
    expect(written).not.toMatch(/[<>]/);
    expect(readChoicesText(`${written}, required`)).toEqual({ choices, rest: ", required" });
    expect(readChoicesText(`${written}, e.g. 10: d`)).toEqual({ choices, rest: ", e.g. 10: d" });
  });

  it("writes a long set as its size, and reads that, a cut list or another detail as no set", () => {
    const many = Array.from({ length: 21 }, (_, index) => `v${index}`);
    expect(choicesText(many)).toBe("one of 21 values");
    expect(readChoicesText("one of 21 values, required")).toEqual({ rest: ", required" });
    expect(readChoicesText("one of: sales, traf…")).toEqual({ rest: "traf…" });
    expect(readChoicesText("string, required")).toBeUndefined();
  });
});
