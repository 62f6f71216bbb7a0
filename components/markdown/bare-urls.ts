/**
 * Bare and angle-bracket URLs in inline text. The work for each candidate is bounded by the
 * text it links (which the parser then skips) plus its scheme and host, which no other
 * candidate shares, so a text full of failed candidates still costs linear time.
 */
import { isSpace, type StepCounter } from "./markdown-types";
import { safeLinkHref } from "./safe-link";

/** The length of an `http://` or `https://` prefix (any case) at `index`, or 0. */
export function httpPrefix(text: string, index: number): number {
  if (text.slice(index, index + 4).toLowerCase() !== "http") return 0;
  const secure = text[index + 4] === "s" || text[index + 4] === "S" ? 1 : 0;
  return text.startsWith("://", index + 4 + secure) ? 7 + secure : 0;
}

const TRIMMED = new Set([".", ",", ";", ":", "!", "?", "'", '"', "*", "_", "~"]);

export class BareUrls {
  private runEnds?: Int32Array;
  private balance?: Int32Array;
  private readonly tails = new Map<number, { start: number; closes: number[] }>();

  constructor(
    readonly text: string,
    private readonly ctx: StepCounter,
  ) {}

  /** `<http://…>` at `open`: the link's text and href and the index after `>`, or undefined. */
  angle(open: number): { url: string; href: string; end: number } | undefined {
    const { text } = this;
    const prefix = httpPrefix(text, open + 1);
    if (prefix === 0) return undefined;
    let index = open + 1 + prefix;
    while (index < text.length && !isSpace(text[index]) && text[index] !== "<" && text[index] !== ">") {
      this.ctx.steps++;
      index++;
    }
    if (text[index] !== ">" || index === open + 1 + prefix) return undefined;
    const url = text.slice(open + 1, index);
    this.ctx.steps += url.length;
    const href = safeLinkHref(url);
    return href ? { url, href, end: index + 1 } : undefined;
  }

  /** A bare URL starting at `start`, trimmed of sentence punctuation, with its href, or undefined. */
  bare(start: number): { url: string; href: string } | undefined {
    const { text } = this;
    const prefix = httpPrefix(text, start);
    if (prefix === 0) return undefined;
    const runEnd = this.runEnd(start);
    if (runEnd <= start + prefix) return undefined;
    const end = this.trimmedEnd(start, runEnd);
    if (end - start <= "https://".length) return undefined;
    // Whether a URL parses depends only on its scheme and host: check those first, so
    // overlapping failed candidates never each pay for the whole rest of the text.
    let host = start + prefix;
    while (host < end && (text[host] === "/" || text[host] === "\\")) host++;
    while (host < end && !"/\\?#".includes(text[host] as string)) host++;
    this.ctx.steps += host - start;
    const authority = host === end ? text.slice(start, end) : `${text.slice(start, host)}/`;
    if (!safeLinkHref(authority)) return undefined;
    const url = text.slice(start, end);
    this.ctx.steps += url.length;
    const href = safeLinkHref(url);
    return href ? { url, href } : undefined;
  }

  /** Where the run of URL characters (`[^\s<>"]`) containing `index` ends. */
  private runEnd(index: number): number {
    if (!this.runEnds) {
      const { text } = this;
      const table = new Int32Array(text.length + 1);
      table[text.length] = text.length;
      for (let at = text.length - 1; at >= 0; at--) {
        this.ctx.steps++;
        const char = text[at];
        table[at] = isSpace(char) || char === "<" || char === ">" || char === '"' ? at : (table[at + 1] as number);
      }
      this.runEnds = table;
    }
    return this.runEnds[index] as number;
  }

  /** `)` minus `(` before each index. */
  private balanceAt(index: number): number {
    if (!this.balance) {
      const { text } = this;
      const table = new Int32Array(text.length + 1);
      for (let at = 0; at < text.length; at++) {
        this.ctx.steps++;
        const char = text[at];
        table[at + 1] = (table[at] as number) + (char === ")" ? 1 : char === "(" ? -1 : 0);
      }
      this.balance = table;
    }
    return this.balance[index] as number;
  }

  /**
   * Drops trailing punctuation, and trailing `)` while the URL has more `)` than `(`. The
   * trailing stretch of such characters is found once per run end; in it, each `)` raises the
   * balance by one, so where trimming stops follows from the balance at `start`.
   */
  private trimmedEnd(start: number, runEnd: number): number {
    let tail = this.tails.get(runEnd);
    if (!tail) {
      const { text } = this;
      let from = runEnd;
      const closes: number[] = [];
      while (from > start && (TRIMMED.has(text[from - 1] as string) || text[from - 1] === ")")) {
        this.ctx.steps++;
        if (text[from - 1] === ")") closes.push(from - 1);
        from--;
      }
      tail = { start: from, closes: closes.reverse() };
      this.tails.set(runEnd, tail);
    }
    const kept = Math.min(tail.closes.length, this.balanceAt(start) - this.balanceAt(tail.start));
    return kept >= 1 ? (tail.closes[kept - 1] as number) + 1 : tail.start;
  }
}
