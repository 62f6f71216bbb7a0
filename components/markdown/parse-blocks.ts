/**
 * Block structure: splits lines into paragraphs, headings, lists, quotes, fenced code, rules
 * and tables. Every line is classified at most once per nesting level (the answers are
 * memoised), so the block pass is linear; inline text is handed to parse-inline.ts.
 */
import {
  closesFence,
  isBlank,
  isRule,
  isTableSeparator,
  matchBullet,
  matchFence,
  matchHeading,
  matchOrdered,
  matchQuote,
  splitRow,
  type Fence,
} from "./block-lines";
import { MAX_DEPTH, MAX_TABLE_COLUMNS, type Block, type Inline, type StepCounter, type TableAlign } from "./markdown-types";
import { parseInline } from "./parse-inline";

type Ordered = { start: number; content: string };

const UNSET = Symbol("unset");

/** Memoises `compute` for each line index: each line is classified once. */
function memo<T>(lines: readonly string[], ctx: StepCounter, compute: (line: string, index: number) => T): (index: number) => T {
  const values: (T | typeof UNSET)[] = new Array(lines.length + 1).fill(UNSET);
  return (index) => {
    const known = values[index];
    if (known !== UNSET) return known as T;
    ctx.steps++;
    const value = compute(lines[index] ?? "", index);
    values[index] = value;
    return value;
  };
}

/** Lazily computed facts about each line. */
class LineFacts {
  readonly blank;
  readonly fence;
  readonly heading;
  readonly rule;
  readonly quote;
  readonly bullet;
  readonly ordered;
  readonly tableStart;

  constructor(lines: readonly string[], ctx: StepCounter) {
    this.blank = memo(lines, ctx, (line) => isBlank(line, ctx));
    this.fence = memo(lines, ctx, (line) => matchFence(line, ctx));
    this.heading = memo(lines, ctx, (line) => matchHeading(line, ctx));
    this.rule = memo(lines, ctx, (line) => isRule(line, ctx));
    this.quote = memo(lines, ctx, (line) => matchQuote(line, ctx));
    this.bullet = memo(lines, ctx, (line) => matchBullet(line, ctx));
    this.ordered = memo(lines, ctx, (line) => matchOrdered(line, ctx));
    this.tableStart = memo(lines, ctx, (header, i) => {
      const separator = lines[i + 1];
      if (separator === undefined) return false;
      if (!header.includes("|") || !separator.includes("-") || !isTableSeparator(separator, ctx)) return false;
      const columns = splitRow(header, ctx).length;
      return columns <= MAX_TABLE_COLUMNS && columns === splitRow(separator, ctx).length;
    });
  }

  startsBlock(i: number): boolean {
    return (
      this.fence(i) !== undefined ||
      this.heading(i) !== undefined ||
      this.rule(i) ||
      this.quote(i) !== undefined ||
      this.bullet(i) !== undefined ||
      this.ordered(i) !== undefined
    );
  }
}

function alignment(cell: string): TableAlign {
  const left = cell.startsWith(":");
  const right = cell.endsWith(":");
  return left && right ? "center" : right ? "right" : left ? "left" : null;
}

/**
 * Parses lines into blocks. When `starts` is given, the index of the first line of each
 * top-level block is pushed to it (the streaming parser uses this to find finished blocks).
 */
export function parseBlocks(lines: readonly string[], depth: number, ctx: StepCounter, starts?: number[]): Block[] {
  const facts = new LineFacts(lines, ctx);
  const inline = (text: string): Inline[] => parseInline(text, depth, ctx);
  const blocks: Block[] = [];
  let index = 0;
  while (index < lines.length) {
    ctx.steps++;
    const line = lines[index] as string;
    if (facts.blank(index)) {
      index++;
      continue;
    }
    starts?.push(index);

    const fence: Fence | undefined = facts.fence(index);
    if (fence) {
      const body: string[] = [];
      index++;
      while (index < lines.length) {
        ctx.steps++;
        const current = lines[index] as string;
        index++;
        if (closesFence(current, fence, ctx)) break;
        body.push(current);
      }
      ctx.steps += body.length;
      blocks.push({ type: "code", language: fence.language, value: body.join("\n") });
      continue;
    }

    const heading = facts.heading(index);
    if (heading) {
      blocks.push({ type: "heading", level: heading.level as 1 | 2 | 3 | 4 | 5 | 6, children: inline(heading.content) });
      index++;
      continue;
    }

    if (facts.rule(index)) {
      blocks.push({ type: "rule" });
      index++;
      continue;
    }

    if (facts.quote(index) !== undefined) {
      const inner: string[] = [];
      for (let quoted = facts.quote(index); quoted !== undefined; quoted = facts.quote(index)) {
        ctx.steps++;
        inner.push(quoted);
        index++;
      }
      blocks.push(
        depth >= MAX_DEPTH ? { type: "paragraph", children: inline(inner.join("\n")) } : { type: "quote", children: parseBlocks(inner, depth + 1, ctx) },
      );
      continue;
    }

    if (facts.tableStart(index)) {
      const header = splitRow(line, ctx);
      const align = splitRow(lines[index + 1] as string, ctx).map(alignment);
      index += 2;
      const rows: Inline[][][] = [];
      while (index < lines.length) {
        ctx.steps++;
        const current = lines[index] as string;
        if (facts.blank(index) || !current.includes("|")) break;
        const cells = splitRow(current, ctx);
        rows.push(header.map((_, column) => inline(cells[column] ?? "")));
        index++;
      }
      blocks.push({ type: "table", align, header: header.map((cell) => inline(cell)), rows });
      continue;
    }

    const bullet = facts.bullet(index);
    const ordered: Ordered | undefined = bullet === undefined ? facts.ordered(index) : undefined;
    if (bullet !== undefined || ordered !== undefined) {
      const isOrdered = ordered !== undefined;
      const item = (i: number): string | undefined => (isOrdered ? facts.ordered(i)?.content : facts.bullet(i));
      const items: string[][] = [];
      while (index < lines.length) {
        ctx.steps++;
        const content = item(index);
        if (content !== undefined) {
          items.push([content]);
          index++;
          continue;
        }
        if (facts.blank(index)) {
          // A blank line ends the list unless another item of the same kind follows.
          if (index + 1 < lines.length && item(index + 1) !== undefined) {
            index++;
            continue;
          }
          break;
        }
        if (facts.startsBlock(index) || facts.tableStart(index)) break;
        items.at(-1)?.push((lines[index] as string).trim());
        index++;
      }
      blocks.push({
        type: "list",
        ordered: isOrdered,
        start: ordered?.start ?? 1,
        items: items.map((itemLines) => inline(itemLines.join("\n"))),
      });
      continue;
    }

    const paragraph: string[] = [];
    while (index < lines.length) {
      ctx.steps++;
      if (facts.blank(index) || (paragraph.length > 0 && (facts.startsBlock(index) || facts.tableStart(index)))) break;
      paragraph.push((lines[index] as string).trim());
      index++;
    }
    blocks.push({ type: "paragraph", children: inline(paragraph.join("\n")) });
  }
  return blocks;
}
