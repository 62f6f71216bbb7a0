import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { createIncrementalMarkdown } from "./incremental-markdown";
import { parseMarkdown } from "./parse-markdown";

const LINES = [
  "text *em* and [a link](https://x.test)",
  "more `code` text",
  "",
  "",
  "# Heading",
  "- item",
  "- [ ] task",
  "1. first",
  "2) second",
  "> quoted",
  "> > deeper",
  "```js",
  "```",
  "~~~",
  "| a | b |",
  "|---|:-:|",
  "| 1 | 2 |",
  "---",
  "   ",
  "  indented",
];
const document = fc
  .tuple(fc.array(fc.constantFrom(...LINES), { maxLength: 30 }), fc.constantFrom("\n", "\r\n", "\r"), fc.boolean())
  .map(([lines, ending, trailing]) => lines.join(ending) + (trailing ? ending : ""));

/** Cut `text` into chunks at the given fractions of its length. */
function chunks(text: string, cuts: number[]): string[] {
  const points = [...new Set(cuts.map((cut) => Math.floor(cut * text.length)))].sort((a, b) => a - b);
  const prefixes = points.filter((point) => point > 0 && point < text.length).map((point) => text.slice(0, point));
  return [...prefixes, text];
}

describe("createIncrementalMarkdown", () => {
  it("gives the same blocks as parsing the whole text, after every chunk", () => {
    fc.assert(
      fc.property(document, fc.array(fc.double({ min: 0, max: 1, noNaN: true }), { maxLength: 40 }), (text, cuts) => {
        const parser = createIncrementalMarkdown();
        for (const prefix of chunks(text, cuts)) expect(parser.update(prefix)).toEqual(parseMarkdown(prefix));
      }),
      { numRuns: 1500 },
    );
  });

  it("gives the same blocks when fed one character at a time", () => {
    fc.assert(
      fc.property(document, (text) => {
        const parser = createIncrementalMarkdown();
        for (let length = 1; length <= text.length; length++) {
          const prefix = text.slice(0, length);
          expect(parser.update(prefix)).toEqual(parseMarkdown(prefix));
        }
      }),
      { numRuns: 150 },
    );
  });

  it("keeps finished blocks as the same objects and starts over when the text is replaced", () => {
    const parser = createIncrementalMarkdown();
    // "Two" is a complete line: the paragraph before it cannot change any more.
    const first = parser.update("# Title\n\nOne paragraph.\n\nTwo\n");
    const second = parser.update("# Title\n\nOne paragraph.\n\nTwo\nand more");
    expect(second[0]).toBe(first[0]);
    expect(second[1]).toBe(first[1]);
    expect(parser.update("Something else")).toEqual(parseMarkdown("Something else"));
  });

  it("does not finish a code block while its fence is open, nor a list that may go on", () => {
    const parser = createIncrementalMarkdown();
    parser.update("```\na\n\nb\n");
    expect(parser.update("```\na\n\nb\n```\n\nc")).toEqual(parseMarkdown("```\na\n\nb\n```\n\nc"));
    const list = createIncrementalMarkdown();
    list.update("- a\n\n-");
    expect(list.update("- a\n\n- b")).toEqual([
      { type: "list", ordered: false, start: 1, items: [[{ type: "text", value: "a" }], [{ type: "text", value: "b" }]] },
    ]);
  });

  it("parses each finished block once: characters parsed stay near total + chunks × last block", () => {
    const paragraph = `${"word ".repeat(40)}*em* [l](https://x.test)`;
    const blocks = [paragraph, "- a\n- b", "```\ncode\n\nmore\n```", "> quote", "| a |\n|---|\n| 1 |"];
    const text = Array.from({ length: 500 }, (_, index) => blocks[index % blocks.length]).join("\n\n");
    const longest = Math.max(...blocks.map((block) => block.length));
    const chunk = 16;
    const parser = createIncrementalMarkdown();
    let count = 0;
    for (let end = chunk; end < text.length + chunk; end += chunk) {
      parser.update(text.slice(0, end));
      count++;
    }
    expect(parser.update(text)).toEqual(parseMarkdown(text));
    // Each update parses the unfinished tail: the last block, the one before it until the
    // next block's first line is complete, and the separating blank lines.
    expect(parser.parsedChars).toBeLessThanOrEqual(text.length + count * (2 * longest + 4));
    // Re-parsing everything on every chunk would cost about text.length² / (2 × chunk).
    expect(parser.parsedChars).toBeLessThan((text.length * text.length) / (2 * chunk) / 20);
  });

  it("counts steps through the optional counter", () => {
    const counter = { steps: 0 };
    const parser = createIncrementalMarkdown(counter);
    parser.update("a\n\nb");
    expect(counter.steps).toBeGreaterThan(0);
  });
});
