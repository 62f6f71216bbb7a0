import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { plainText, repeatTo } from "./markdown-test-support";
import { parseInline, parseMarkdown } from "./parse-markdown";

/** Inputs that made the previous parser rescan to the end of the text (or could have). */
const HOSTILE: Record<string, string> = {
  brackets: "[",
  "unfinished links": "[a](",
  "list of brackets": "- [\n",
  "brackets after a dash": "- [",
  images: "![",
  stars: "*",
  "stars with text": "*a ",
  "strong openers": " **a",
  underscores: "_",
  "underscore openers": " __a",
  tildes: " ~~a",
  backticks: "`",
  "backtick runs": "``a`a",
  "nested lists": "- a\n  - b\n    - c\n",
  "nested quotes": ">",
  "quote lines": "> > [\n",
  "angle URLs": "<http://a",
  "bare URLs": "http://[",
  "URL parentheses": "http://a.b/(x))",
  escapes: "\\[\\",
  parentheses: "(",
  "heading hashes": "# a #",
  "fence info": "```a",
  "table cells": "|a",
  mixed: "[a](*_`<http://x ![**~~\n",
  "nested links": "[[[[[[[[*_`(<http://x a](x)](x)](x)](x)](x)](x)](x)](x) ",
  "nested emphasis": "*[_[**[~~[`a` [b](<http://x *a_ ![c](x)~~](x)**](x)_](x)* ",
  "quoted nesting": "> > > > > > > [[[[[[[[*_`(<http://x a](x)](x)](x)](x)](x)](x)](x)](x)\n",
};

const steps = (text: string): number => {
  const counter = { steps: 0 };
  parseMarkdown(text, counter);
  return counter.steps;
};

/**
 * At most this many steps per input character. One level of parsing measures 2 to 12 steps
 * per character; nested labels and emphasis add at most MAX_DEPTH further levels over
 * disjoint spans, which the mixed patterns below reach to about 17.
 */
const PER_CHAR = 24;

describe("parseMarkdown work on hostile input (counted, not timed)", () => {
  for (const [name, pattern] of Object.entries(HOSTILE)) {
    it(`${name}: at most ${PER_CHAR} steps per character, and linear growth`, () => {
      expect(steps(repeatTo(pattern, 100_000))).toBeLessThanOrEqual(PER_CHAR * 100_000);
      // Whole repetitions, so that doubling the text doubles every construct in it.
      const units = Math.round(25_000 / pattern.length);
      const [small, medium, large] = [units, 2 * units, 4 * units].map((count) => steps(pattern.repeat(count)));
      expect(medium! / small!).toBeLessThanOrEqual(2.1);
      expect(large! / medium!).toBeLessThanOrEqual(2.1);
    });
  }

  it("a wide table does not pad every row to the header", () => {
    const text = `${repeatTo("|a", 20_000)}|\n${repeatTo("|-", 20_000)}|\n${"|\n".repeat(30_000)}`;
    expect(steps(text)).toBeLessThanOrEqual(PER_CHAR * text.length);
  });

  it("any mix of hostile pieces stays within the bound", () => {
    fc.assert(
      fc.property(fc.array(fc.constantFrom(...Object.values(HOSTILE)), { minLength: 1, maxLength: 8 }), (pieces) => {
        const text = repeatTo(pieces.join(""), 20_000);
        expect(steps(text)).toBeLessThanOrEqual(PER_CHAR * text.length);
      }),
      { numRuns: 40 },
    );
  });

  it("counts inline work too", () => {
    const counter = { steps: 0 };
    parseInline(repeatTo("[", 50_000), 0, counter);
    expect(counter.steps).toBeGreaterThan(50_000);
    expect(counter.steps).toBeLessThanOrEqual(PER_CHAR * 50_000);
  });
});

const PIECES = [
  "a",
  "b",
  "c",
  " ",
  "\n",
  "\n\n",
  "*",
  "**",
  "_",
  "__",
  "~",
  "~~",
  "`",
  "``",
  "[",
  "]",
  "](",
  ")",
  "<",
  ">",
  "\\",
  "#",
  "# ",
  "- ",
  "1. ",
  "> ",
  "!",
  ".",
  "https://x.y/z",
  "<https://q.r>",
  "\r\n",
  "\t",
  "é",
];
const markdownish = fc.array(fc.constantFrom(...PIECES), { maxLength: 60 }).map((pieces) => pieces.join(""));

describe("parseMarkdown properties", () => {
  it("never throws, on arbitrary or Markdown-like text", () => {
    fc.assert(
      fc.property(fc.string({ unit: "binary" }), (text) => void parseMarkdown(text)),
      { numRuns: 500 },
    );
    fc.assert(
      fc.property(markdownish, (text) => void parseMarkdown(text)),
      { numRuns: 2000 },
    );
  });

  it("keeps every letter a reader should see, in order", () => {
    // Without fences (their info string is metadata), link targets or table rows (extra
    // cells are dropped), syntax only removes markers: the letters survive in order.
    const letters = (text: string) => text.replace(/[^a-zé]/g, "");
    fc.assert(
      fc.property(markdownish, (text) => {
        fc.pre(!/`{3}|~{3}/.test(text) && !text.includes("]("));
        expect(letters(plainText(parseMarkdown(text)))).toBe(letters(text));
      }),
      { numRuns: 2000 },
    );
  });

  it("links only http(s) URLs", () => {
    const targets = fc.constantFrom("javascript:alert(1)", "data:text/html,x", "/rel", "//x.y", "https://ok.test/a", "HTTP://x.y");
    fc.assert(
      fc.property(markdownish, targets, markdownish, (before, target, after) => {
        const hrefs: string[] = [];
        const walk = (value: unknown): void => {
          if (Array.isArray(value)) value.forEach(walk);
          else if (value && typeof value === "object") {
            if ((value as { type?: string }).type === "link") hrefs.push((value as { href: string }).href);
            Object.values(value).forEach(walk);
          }
        };
        walk(parseMarkdown(`${before}[x](${target})${after}`));
        for (const href of hrefs) expect(href).toMatch(/^https?:\/\//);
      }),
      { numRuns: 1000 },
    );
  });
});
