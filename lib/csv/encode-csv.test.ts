/** The CSV encoder: RFC 4180 quoting that reads back exactly, and no cell a spreadsheet would run as a formula. */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { parseCsv } from "../../tests/support/parse-csv";
import { encodeCsv, encodeCsvCell } from "./encode-csv";

describe("encodeCsvCell", () => {
  it.each([
    ["plain", "plain"],
    ["a,b", '"a,b"'],
    ['say "hi"', '"say ""hi"""'],
    ["two\nlines", '"two\nlines"'],
    ["cr\r\nlf", '"cr\r\nlf"'],
    [null, ""],
    [undefined, ""],
    [0.25, "0.25"],
  ])("encodes %j as %j", (value, encoded) => {
    expect(encodeCsvCell(value)).toBe(encoded);
  });

  it.each([
    ['=HYPERLINK("http://evil.example")', '"\'=HYPERLINK(""http://evil.example"")"'],
    ["+1+1", "'+1+1"],
    ["-2+3", "'-2+3"],
    ["@SUM(A1)", "'@SUM(A1)"],
    ["\t=1", "'\t=1"],
    ["\r=1", '"\'\r=1"'],
  ])("prefixes the formula %j with a quote", (value, encoded) => {
    expect(encodeCsvCell(value)).toBe(encoded);
  });

  it("leaves formula characters alone when they are not first", () => {
    expect(encodeCsvCell("a=b")).toBe("a=b");
    expect(encodeCsvCell("0x12-34")).toBe("0x12-34");
  });
});

describe("encodeCsv", () => {
  it("writes a header line and one CRLF-ended line per row", () => {
    expect(
      encodeCsv(
        ["a", "b"],
        [
          ["1", null],
          ["x,y", "2"],
        ],
      ),
    ).toBe('a,b\r\n1,\r\n"x,y",2\r\n');
  });

  it("reads back cell for cell, whatever the text, once formula guards are accounted for", () => {
    fc.assert(
      fc.property(fc.array(fc.array(fc.string({ unit: "grapheme-ascii" }), { minLength: 2, maxLength: 2 }), { maxLength: 5 }), (rows) => {
        const decoded = parseCsv(encodeCsv(["first", "second"], rows));
        const guarded = rows.map((row) => row.map((cell) => (/^[=+\-@\t\r]/.test(cell) ? `'${cell}` : cell)));
        expect(decoded).toEqual([["first", "second"], ...guarded]);
      }),
    );
  });
});
