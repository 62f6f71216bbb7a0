/**
 * A small, safe Markdown subset for the assistant's answers: paragraphs, headings, lists,
 * block quotes, fenced code, rules, GitHub-style tables, and inline code, bold, italic,
 * strikethrough and links. It produces a tree, never HTML: the renderer turns the tree into
 * React elements, so raw HTML in the text stays text. Links survive only when they are
 * absolute http(s) URLs. Half-written syntax (the stream is mid-sentence) stays literal text.
 */

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

/** Nesting deeper than this (quotes in quotes, emphasis in emphasis) is kept as text. */
const MAX_DEPTH = 6;

const FENCE = /^ {0,3}(`{3,}|~{3,})\s*([\w+#.-]*)[^`]*$/;
const HEADING = /^ {0,3}(#{1,6})(?:\s+(.*?))?\s*#*\s*$/;
const RULE = /^ {0,3}([-*_])(?:\s*\1){2,}\s*$/;
const QUOTE = /^ {0,3}>\s?(.*)$/;
const BULLET = /^ {0,3}[-*+]\s+(.*)$/;
const ORDERED = /^ {0,3}(\d{1,9})[.)]\s+(.*)$/;
const TABLE_SEPARATOR = /^\s*\|?\s*:?-+:?\s*(\|\s*:?-+:?\s*)*\|?\s*$/;

/** Returns the URL when it is an absolute http(s) URL, otherwise undefined. */
export function safeLinkHref(raw: string): string | undefined {
  const value = raw.trim();
  if (!/^https?:\/\//i.test(value)) return undefined;
  try {
    const url = new URL(value);
    return url.protocol === "http:" || url.protocol === "https:" ? url.href : undefined;
  } catch {
    return undefined;
  }
}

export function parseMarkdown(source: string): Block[] {
  return parseBlocks(source.replace(/\r\n?/g, "\n").split("\n"), 0);
}

function startsBlock(line: string): boolean {
  return FENCE.test(line) || HEADING.test(line) || RULE.test(line) || QUOTE.test(line) || BULLET.test(line) || ORDERED.test(line);
}

function splitRow(line: string): string[] {
  let text = line.trim();
  if (text.startsWith("|")) text = text.slice(1);
  if (text.endsWith("|") && !text.endsWith("\\|")) text = text.slice(0, -1);
  const cells: string[] = [];
  let current = "";
  for (let index = 0; index < text.length; index++) {
    const char = text[index];
    if (char === "\\" && text[index + 1] === "|") {
      current += "|";
      index++;
    } else if (char === "|") {
      cells.push(current.trim());
      current = "";
    } else {
      current += char;
    }
  }
  cells.push(current.trim());
  return cells;
}

function isTableStart(lines: readonly string[], index: number): boolean {
  const header = lines[index];
  const separator = lines[index + 1];
  if (header === undefined || separator === undefined) return false;
  if (!header.includes("|") || !separator.includes("-") || !TABLE_SEPARATOR.test(separator)) return false;
  return splitRow(header).length === splitRow(separator).length;
}

function parseBlocks(lines: readonly string[], depth: number): Block[] {
  const blocks: Block[] = [];
  let index = 0;
  while (index < lines.length) {
    const line = lines[index] as string;
    if (line.trim() === "") {
      index++;
      continue;
    }

    const fence = FENCE.exec(line);
    if (fence) {
      const marker = fence[1] as string;
      const body: string[] = [];
      index++;
      while (index < lines.length) {
        const current = lines[index] as string;
        const trimmed = current.trim();
        if (trimmed.startsWith(marker[0]!.repeat(marker.length)) && /^(`+|~+)$/.test(trimmed)) {
          index++;
          break;
        }
        body.push(current);
        index++;
      }
      blocks.push({ type: "code", language: fence[2] || undefined, value: body.join("\n") });
      continue;
    }

    const heading = HEADING.exec(line);
    if (heading) {
      const level = (heading[1] as string).length as 1 | 2 | 3 | 4 | 5 | 6;
      blocks.push({ type: "heading", level, children: parseInline(heading[2] ?? "", depth) });
      index++;
      continue;
    }

    if (RULE.test(line)) {
      blocks.push({ type: "rule" });
      index++;
      continue;
    }

    if (QUOTE.test(line)) {
      const inner: string[] = [];
      while (index < lines.length) {
        const match = QUOTE.exec(lines[index] as string);
        if (!match) break;
        inner.push(match[1] ?? "");
        index++;
      }
      blocks.push(
        depth >= MAX_DEPTH
          ? { type: "paragraph", children: parseInline(inner.join("\n"), depth) }
          : { type: "quote", children: parseBlocks(inner, depth + 1) },
      );
      continue;
    }

    if (isTableStart(lines, index)) {
      const header = splitRow(line);
      const align = splitRow(lines[index + 1] as string).map((cell): TableAlign => {
        const left = cell.startsWith(":");
        const right = cell.endsWith(":");
        return left && right ? "center" : right ? "right" : left ? "left" : null;
      });
      index += 2;
      const rows: Inline[][][] = [];
      while (index < lines.length) {
        const current = lines[index] as string;
        if (current.trim() === "" || !current.includes("|")) break;
        const cells = splitRow(current);
        rows.push(header.map((_, column) => parseInline(cells[column] ?? "", depth)));
        index++;
      }
      blocks.push({ type: "table", align, header: header.map((cell) => parseInline(cell, depth)), rows });
      continue;
    }

    const bullet = BULLET.exec(line);
    const ordered = bullet ? null : ORDERED.exec(line);
    if (bullet || ordered) {
      const isOrdered = ordered !== null;
      const pattern = isOrdered ? ORDERED : BULLET;
      const items: string[][] = [];
      while (index < lines.length) {
        const current = lines[index] as string;
        const match = pattern.exec(current);
        if (match) {
          items.push([(isOrdered ? match[2] : match[1]) ?? ""]);
          index++;
          continue;
        }
        if (current.trim() === "") {
          // A blank line ends the list unless another item of the same kind follows.
          const next = lines[index + 1];
          if (next !== undefined && pattern.test(next)) {
            index++;
            continue;
          }
          break;
        }
        if (startsBlock(current) || isTableStart(lines, index)) break;
        items.at(-1)?.push(current.trim());
        index++;
      }
      blocks.push({
        type: "list",
        ordered: isOrdered,
        start: isOrdered ? Number(ordered?.[1] ?? 1) : 1,
        items: items.map((item) => parseInline(item.join("\n"), depth)),
      });
      continue;
    }

    const paragraph: string[] = [];
    while (index < lines.length) {
      const current = lines[index] as string;
      if (current.trim() === "" || (paragraph.length > 0 && (startsBlock(current) || isTableStart(lines, index)))) break;
      paragraph.push(current.trim());
      index++;
    }
    blocks.push({ type: "paragraph", children: parseInline(paragraph.join("\n"), depth) });
  }
  return blocks;
}

const ESCAPABLE = /[!-/:-@[-`{-~]/;
const BARE_URL = /^https?:\/\/[^\s<>"]+/i;

function isWordChar(char: string | undefined): boolean {
  return char !== undefined && /[\p{L}\p{N}]/u.test(char);
}

/** Trims punctuation a sentence puts after a URL, keeping balanced parentheses. */
function trimUrl(url: string): string {
  let end = url.length;
  while (end > 0) {
    const char = url[end - 1] as string;
    if (/[.,;:!?'"*_~]/.test(char)) {
      end--;
      continue;
    }
    if (char === ")") {
      const slice = url.slice(0, end);
      const opens = (slice.match(/\(/g) ?? []).length;
      const closes = (slice.match(/\)/g) ?? []).length;
      if (closes > opens) {
        end--;
        continue;
      }
    }
    break;
  }
  return url.slice(0, end);
}

/** Finds the `]` matching the `[` at `open`, or -1. */
function matchingBracket(text: string, open: number): number {
  let depth = 0;
  for (let index = open; index < text.length; index++) {
    const char = text[index];
    if (char === "\\") {
      index++;
    } else if (char === "[") {
      depth++;
    } else if (char === "]") {
      depth--;
      if (depth === 0) return index;
    }
  }
  return -1;
}

/** Parses `(url "title")` at `open`; returns the URL and the index after `)`, or undefined. */
function linkDestination(text: string, open: number): { url: string; end: number } | undefined {
  if (text[open] !== "(") return undefined;
  let depth = 0;
  for (let index = open; index < text.length; index++) {
    const char = text[index];
    if (char === "\n") return undefined;
    if (char === "(") depth++;
    else if (char === ")") {
      depth--;
      if (depth === 0) {
        const inside = text.slice(open + 1, index).trim();
        const url = inside.replace(/\s+("[^"]*"|'[^']*')$/, "").replace(/^<(.*)>$/, "$1");
        return { url, end: index + 1 };
      }
    }
  }
  return undefined;
}

/** Finds the closing delimiter for emphasis that opened at `from`, or -1. */
function closingDelimiter(text: string, delimiter: string, from: number): number {
  let index = from;
  while (index < text.length) {
    const found = text.indexOf(delimiter, index);
    if (found === -1) return -1;
    const before = text[found - 1];
    const after = text[found + delimiter.length];
    const wordDelimiter = delimiter[0] === "_";
    const escaped = before === "\\";
    const validClose = before !== undefined && !/\s/.test(before) && !escaped && (!wordDelimiter || !isWordChar(after));
    // `**` must not be read as two `*` closers, nor `*` as half of `**`.
    const partOfLonger = delimiter.length === 1 && (after === delimiter || before === delimiter);
    if (found > from && validClose && !partOfLonger) return found;
    index = found + delimiter.length;
  }
  return -1;
}

export function parseInline(text: string, depth = 0): Inline[] {
  const nodes: Inline[] = [];
  let buffer = "";
  const flush = () => {
    if (buffer) nodes.push({ type: "text", value: buffer });
    buffer = "";
  };
  const nested = (inner: string): Inline[] =>
    depth >= MAX_DEPTH ? [{ type: "text", value: inner }] : parseInline(inner, depth + 1);

  let index = 0;
  while (index < text.length) {
    const char = text[index] as string;
    const next = text[index + 1];

    if (char === "\\" && next !== undefined && ESCAPABLE.test(next)) {
      buffer += next;
      index += 2;
      continue;
    }

    if (char === "\n") {
      flush();
      nodes.push({ type: "break" });
      index++;
      continue;
    }

    if (char === "`") {
      let run = 1;
      while (text[index + run] === "`") run++;
      const fence = "`".repeat(run);
      let search = index + run;
      let close = -1;
      while (search < text.length) {
        const found = text.indexOf(fence, search);
        if (found === -1) break;
        let length = run;
        while (text[found + length] === "`") length++;
        if (length === run) {
          close = found;
          break;
        }
        search = found + length;
      }
      if (close !== -1) {
        flush();
        let value = text.slice(index + run, close).replace(/\n/g, " ");
        if (value.length > 2 && value.startsWith(" ") && value.endsWith(" ")) value = value.slice(1, -1);
        nodes.push({ type: "code", value });
        index = close + run;
        continue;
      }
      buffer += fence;
      index += run;
      continue;
    }

    if (char === "[") {
      const close = matchingBracket(text, index);
      const destination = close === -1 ? undefined : linkDestination(text, close + 1);
      if (close !== -1 && destination) {
        flush();
        const label = nested(text.slice(index + 1, close));
        const href = safeLinkHref(destination.url);
        if (href) nodes.push({ type: "link", href, children: label });
        else nodes.push(...label);
        index = destination.end;
        continue;
      }
    }

    if (char === "<") {
      const end = text.indexOf(">", index);
      const inner = end === -1 ? "" : text.slice(index + 1, end);
      const href = /^https?:\/\/[^\s<>]+$/i.test(inner) ? safeLinkHref(inner) : undefined;
      if (href) {
        flush();
        nodes.push({ type: "link", href, children: [{ type: "text", value: inner }] });
        index = end + 1;
        continue;
      }
    }

    // A bare URL is linked, except as the destination of a link still being streamed.
    const inLinkDestination = text[index - 1] === "(" && text[index - 2] === "]";
    if ((char === "h" || char === "H") && !isWordChar(text[index - 1]) && !inLinkDestination) {
      const match = BARE_URL.exec(text.slice(index));
      if (match) {
        const url = trimUrl(match[0]);
        const href = safeLinkHref(url);
        if (href && url.length > "https://".length) {
          flush();
          nodes.push({ type: "link", href, children: [{ type: "text", value: url }] });
          index += url.length;
          continue;
        }
      }
    }

    if ((char === "*" || char === "_" || char === "~") && next === char) {
      const delimiter = char + char;
      const opensWord = char !== "_" || !isWordChar(text[index - 1]);
      const after = text[index + 2];
      if (opensWord && after !== undefined && !/\s/.test(after)) {
        const close = closingDelimiter(text, delimiter, index + 2);
        if (close !== -1) {
          flush();
          nodes.push({ type: char === "~" ? "del" : "strong", children: nested(text.slice(index + 2, close)) });
          index = close + 2;
          continue;
        }
      }
      buffer += delimiter;
      index += 2;
      continue;
    }

    if (char === "*" || char === "_") {
      const opensWord = char !== "_" || !isWordChar(text[index - 1]);
      if (opensWord && next !== undefined && !/\s/.test(next)) {
        const close = closingDelimiter(text, char, index + 1);
        if (close !== -1) {
          flush();
          nodes.push({ type: "em", children: nested(text.slice(index + 1, close)) });
          index = close + 1;
          continue;
        }
      }
    }

    buffer += char;
    index++;
  }
  flush();
  return nodes;
}
