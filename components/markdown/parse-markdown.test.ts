import { describe, expect, it } from "vitest";
import { parseInline, parseMarkdown, safeLinkHref, type Inline } from "./parse-markdown";

const text = (value: string): Inline => ({ type: "text", value });

describe("parseInline", () => {
  it("reads emphasis, strong, strikethrough and code", () => {
    expect(parseInline("a *b* **c** ~~d~~ `e`")).toEqual([
      text("a "),
      { type: "em", children: [text("b")] },
      text(" "),
      { type: "strong", children: [text("c")] },
      text(" "),
      { type: "del", children: [text("d")] },
      text(" "),
      { type: "code", value: "e" },
    ]);
  });

  it("keeps half-written syntax as literal text while the stream is mid-sentence", () => {
    expect(parseInline("the price is **0.05")).toEqual([text("the price is **0.05")]);
    expect(parseInline("see [the docs](https://exa")).toEqual([text("see [the docs](https://exa")]);
    expect(parseInline("`unfinished")).toEqual([text("`unfinished")]);
  });

  it("does not treat snake_case or 2 * 3 * 4 as emphasis", () => {
    expect(parseInline("get_weather_now")).toEqual([text("get_weather_now")]);
    expect(parseInline("2 * 3 * 4")).toEqual([text("2 * 3 * 4")]);
  });

  it("keeps only http(s) links and drops the others to their text", () => {
    expect(parseInline("[ok](https://example.com/a?b=1)")).toEqual([{ type: "link", href: "https://example.com/a?b=1", children: [text("ok")] }]);
    expect(parseInline("[x](javascript:alert(1))")).toEqual([text("x")]);
    expect(parseInline("[x](data:text/html,hi)")).toEqual([text("x")]);
    expect(parseInline("[x](/relative)")).toEqual([text("x")]);
  });

  it("links bare and angle-bracket URLs without swallowing sentence punctuation", () => {
    expect(parseInline("Go to https://example.com/path.")).toEqual([
      text("Go to "),
      { type: "link", href: "https://example.com/path", children: [text("https://example.com/path")] },
      text("."),
    ]);
    expect(parseInline("(see <http://x.test/a>)")).toEqual([
      text("(see "),
      { type: "link", href: "http://x.test/a", children: [text("http://x.test/a")] },
      text(")"),
    ]);
  });

  it("keeps raw HTML as text", () => {
    expect(parseInline('<img src=x onerror="alert(1)">')).toEqual([text('<img src=x onerror="alert(1)">')]);
  });

  it("honours backslash escapes and turns newlines into breaks", () => {
    expect(parseInline("\\*not em\\*\nnext")).toEqual([text("*not em*"), { type: "break" }, text("next")]);
  });
});

describe("parseMarkdown", () => {
  it("reads headings, lists, quotes, rules and fenced code", () => {
    const blocks = parseMarkdown(
      ["# Weather", "", "- one", "- two", "", "1. first", "2. second", "", "> quoted", "", "---", "```json", '{"a": 1}', "```"].join("\n"),
    );
    expect(blocks).toEqual([
      { type: "heading", level: 1, children: [text("Weather")] },
      { type: "list", ordered: false, start: 1, items: [[text("one")], [text("two")]] },
      { type: "list", ordered: true, start: 1, items: [[text("first")], [text("second")]] },
      { type: "quote", children: [{ type: "paragraph", children: [text("quoted")] }] },
      { type: "rule" },
      { type: "code", language: "json", value: '{"a": 1}' },
    ]);
  });

  it("keeps an unclosed code fence open to the end (streaming)", () => {
    expect(parseMarkdown("```\nline 1\nline 2")).toEqual([{ type: "code", language: undefined, value: "line 1\nline 2" }]);
  });

  it("reads a table with alignment", () => {
    const [table] = parseMarkdown("| Service | Price |\n|:--|--:|\n| Weather | 0.01 |\n| Report | 5 |");
    expect(table).toEqual({
      type: "table",
      align: ["left", "right"],
      header: [[text("Service")], [text("Price")]],
      rows: [
        [[text("Weather")], [text("0.01")]],
        [[text("Report")], [text("5")]],
      ],
    });
  });

  it("joins paragraph lines with breaks and separates paragraphs on blank lines", () => {
    expect(parseMarkdown("a\nb\n\nc")).toEqual([
      { type: "paragraph", children: [text("a"), { type: "break" }, text("b")] },
      { type: "paragraph", children: [text("c")] },
    ]);
  });

  it("survives deep nesting without recursion blow-up", () => {
    expect(() => parseMarkdown(">".repeat(5000) + " x")).not.toThrow();
    expect(() => parseInline("*".repeat(5000))).not.toThrow();
  });
});

describe("safeLinkHref", () => {
  it("accepts only absolute http(s) URLs", () => {
    expect(safeLinkHref("https://a.test")).toBe("https://a.test/");
    expect(safeLinkHref(" HTTP://a.test/x ")).toBe("http://a.test/x");
    expect(safeLinkHref("javascript:alert(1)")).toBeUndefined();
    expect(safeLinkHref("//a.test")).toBeUndefined();
    expect(safeLinkHref("mailto:a@b.c")).toBeUndefined();
  });
});
