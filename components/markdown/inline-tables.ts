/**
 * Position tables for one inline text, each filled by one or two passes over it, so the
 * inline parser finds any closing bracket, parenthesis, backtick run or emphasis delimiter
 * with a single lookup instead of a scan to the end of the text. Every table reproduces the
 * scan it replaces exactly; parse-inline.ts falls back to that scan in the (unreachable, as
 * far as the parser's own positions go) cases a table does not cover.
 */
import { isSpace, isWordChar, type StepCounter } from "./markdown-types";

/** The delimiters emphasis can close with. */
export type Delimiter = "**" | "__" | "~~" | "*" | "_";

export class InlineTables {
  private brackets?: Int32Array;
  private parens?: Int32Array;
  private ticks?: { same: Int32Array; shorter: Int32Array };
  private readonly closers = new Map<Delimiter, Int32Array>();

  constructor(
    readonly text: string,
    private readonly ctx: StepCounter,
  ) {}

  /**
   * The `]` matching the `[` at `open` (a backslash skips the next character), -1 when there
   * is none, or -2 when `open` is not an unescaped `[` of the left-to-right pass.
   */
  bracket(open: number): number {
    if (!this.brackets) {
      const { text } = this;
      const table = new Int32Array(text.length).fill(-2);
      const stack: number[] = [];
      for (let index = 0; index < text.length; index++) {
        this.ctx.steps++;
        const char = text[index];
        if (char === "\\") index++;
        else if (char === "[") {
          table[index] = -1;
          stack.push(index);
        } else if (char === "]" && stack.length > 0) table[stack.pop() as number] = index;
      }
      this.brackets = table;
    }
    return this.brackets[open] ?? -1;
  }

  /** The `)` matching the `(` at `open` on the same line, or -1. */
  paren(open: number): number {
    if (!this.parens) {
      const { text } = this;
      const table = new Int32Array(text.length).fill(-1);
      const stack: number[] = [];
      for (let index = 0; index < text.length; index++) {
        this.ctx.steps++;
        const char = text[index];
        if (char === "\n") stack.length = 0;
        else if (char === "(") stack.push(index);
        else if (char === ")" && stack.length > 0) table[stack.pop() as number] = index;
      }
      this.parens = table;
    }
    return this.parens[open] ?? -1;
  }

  /**
   * For a backtick run starting at `start` (a maximal run), the start of the next maximal run
   * of the same length (`shorter` false) or of one backtick less (`shorter` true), or -1.
   */
  nextRun(start: number, shorter: boolean): number {
    if (!this.ticks) {
      const { text } = this;
      const same = new Int32Array(text.length).fill(-1);
      const less = new Int32Array(text.length).fill(-1);
      const nearest = new Map<number, number>();
      let end = text.length;
      while (end > 0) {
        this.ctx.steps++;
        if (text[end - 1] !== "`") {
          end--;
          continue;
        }
        let begin = end - 1;
        while (begin > 0 && text[begin - 1] === "`") begin--;
        this.ctx.steps += end - begin;
        const length = end - begin;
        same[begin] = nearest.get(length) ?? -1;
        less[begin] = nearest.get(length - 1) ?? -1;
        nearest.set(length, begin);
        end = begin;
      }
      this.ticks = { same, shorter: less };
    }
    return (shorter ? this.ticks.shorter : this.ticks.same)[start] ?? -1;
  }

  /**
   * The first valid closing `delimiter` found scanning from `from` the way an opener searches:
   * occurrences are taken left to right without overlap, one at `from` itself does not count,
   * and a closer must follow a non-space, non-backslash character (and for `_`, not precede a
   * letter or digit; a single `*` or `_` must not touch another one). -1 when there is none.
   */
  closer(delimiter: Delimiter, from: number): number {
    const table = this.closerTable(delimiter);
    if (from >= this.text.length) return -1;
    return this.occursAt(delimiter, from) ? (table[from + delimiter.length] ?? -1) : (table[from] ?? -1);
  }

  private occursAt(delimiter: Delimiter, index: number): boolean {
    const { text } = this;
    return text[index] === delimiter[0] && (delimiter.length === 1 || text[index + 1] === delimiter[1]);
  }

  private closerTable(delimiter: Delimiter): Int32Array {
    let table = this.closers.get(delimiter);
    if (table) return table;
    const { text } = this;
    const length = delimiter.length;
    const char = delimiter[0];
    // table[p]: the first valid occurrence at or after p, skipping invalid ones without overlap.
    table = new Int32Array(text.length + 2).fill(-1);
    for (let index = text.length - 1; index >= 0; index--) {
      this.ctx.steps++;
      if (!this.occursAt(delimiter, index)) {
        table[index] = table[index + 1] as number;
        continue;
      }
      const before = text[index - 1];
      const after = text[index + length];
      const validClose = before !== undefined && !isSpace(before) && before !== "\\" && (char !== "_" || !isWordChar(after));
      const partOfLonger = length === 1 && (after === char || before === char);
      table[index] = validClose && !partOfLonger ? index : (table[index + length] as number);
    }
    this.closers.set(delimiter, table);
    return table;
  }
}
