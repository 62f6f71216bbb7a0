/** The tree the Markdown parser produces; the renderer turns it into React elements. */

export type Inline =
  | { type: "text"; value: string }
  | { type: "code"; value: string }
  | { type: "strong" | "em" | "del"; children: Inline[] }
  | { type: "link"; href: string; children: Inline[] }
  | { type: "break" };

export type TableAlign = "left" | "center" | "right" | null;

export type Block =
  | { type: "paragraph"; children: Inline[] }
  | { type: "heading"; level: 1 | 2 | 3 | 4 | 5 | 6; children: Inline[] }
  | { type: "code"; language: string | undefined; value: string }
  | { type: "list"; ordered: boolean; start: number; items: Inline[][] }
  | { type: "quote"; children: Block[] }
  | { type: "rule" }
  | { type: "table"; align: TableAlign[]; header: Inline[][]; rows: Inline[][][] };

/**
 * Optional instrumentation: the parser adds one step per character or line it examines in
 * its loops (and the length of any string a native call scans), so tests can check that
 * the work stays proportional to the input without timing anything.
 */
export type StepCounter = { steps: number };

/** Nesting deeper than this (quotes in quotes, emphasis in emphasis) is kept as text. */
export const MAX_DEPTH = 6;

/** Tables wider than this stay paragraphs: padding every row to the header would cost columns × rows. */
export const MAX_TABLE_COLUMNS = 64;

/** The characters JavaScript's `\s` and `String.prototype.trim` treat as white space. */
export function isSpace(char: string | undefined): boolean {
  if (char === undefined) return false;
  const code = char.charCodeAt(0);
  if (code <= 32) return code === 32 || (code >= 9 && code <= 13);
  if (code < 0xa0) return false;
  return (
    code === 0xa0 ||
    code === 0x1680 ||
    (code >= 0x2000 && code <= 0x200a) ||
    code === 0x2028 ||
    code === 0x2029 ||
    code === 0x202f ||
    code === 0x205f ||
    code === 0x3000 ||
    code === 0xfeff
  );
}

/** The characters a regular expression's `.` does not match. */
export function isLineTerminator(char: string | undefined): boolean {
  return char === "\n" || char === "\r" || char === "\u2028" || char === "\u2029";
}

const WORD = /[\p{L}\p{N}]/u;

export function isWordChar(char: string | undefined): boolean {
  return char !== undefined && WORD.test(char);
}
