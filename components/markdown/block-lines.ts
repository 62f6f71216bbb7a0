/**
 * Recognises what one line of Markdown starts (fence, heading, rule, quote, list item, table
 * separator) with single forward scans, so a line costs time proportional to its length.
 * Each function reproduces the regular expression named in its comment, including its
 * corner cases, without that expression's backtracking.
 */
import { isLineTerminator, isSpace, type StepCounter } from "./markdown-types";

function isDigit(code: number): boolean {
  return code >= 48 && code <= 57;
}

function leadingSpaces(line: string): number {
  let count = 0;
  while (count < 4 && line[count] === " ") count++;
  return count;
}

function noLineTerminator(text: string, from: number, ctx: StepCounter): boolean {
  for (let index = from; index < text.length; index++) {
    ctx.steps++;
    if (isLineTerminator(text[index])) return false;
  }
  return true;
}

function skipSpace(text: string, from: number, ctx: StepCounter): number {
  let index = from;
  while (index < text.length && isSpace(text[index])) {
    ctx.steps++;
    index++;
  }
  return index;
}

export function isBlank(line: string, ctx: StepCounter): boolean {
  return skipSpace(line, 0, ctx) === line.length;
}

export type Fence = { char: string; length: number; language: string | undefined };

const LANGUAGE_CHAR = /[\w+#.-]/;

/** /^ {0,3}(`{3,}|~{3,})\s*([\w+#.-]*)[^`]*$/ */
export function matchFence(line: string, ctx: StepCounter): Fence | undefined {
  const start = leadingSpaces(line);
  const char = line[start];
  if (start > 3 || (char !== "`" && char !== "~")) return undefined;
  let end = start;
  while (line[end] === char) end++;
  ctx.steps += end - start;
  if (end - start < 3 || line.indexOf("`", end) !== -1) return undefined;
  ctx.steps += line.length - end;
  const from = skipSpace(line, end, ctx);
  let to = from;
  while (to < line.length && LANGUAGE_CHAR.test(line[to] as string)) to++;
  ctx.steps += to - from;
  return { char, length: end - start, language: line.slice(from, to) || undefined };
}

/** A line of only the fence's character, at least as many as opened it, between white space. */
export function closesFence(line: string, fence: Fence, ctx: StepCounter): boolean {
  const trimmed = line.trim();
  ctx.steps += line.length;
  if (trimmed.length < fence.length) return false;
  for (let index = 0; index < trimmed.length; index++) if (trimmed[index] !== fence.char) return false;
  return true;
}

/** /^ {0,3}(#{1,6})(?:\s+(.*?))?\s*#*\s*$/: the level and the text, or undefined. */
export function matchHeading(line: string, ctx: StepCounter): { level: number; content: string } | undefined {
  const start = leadingSpaces(line);
  if (start > 3 || line[start] !== "#") return undefined;
  let end = start;
  while (line[end] === "#") end++;
  ctx.steps += end - start;
  const level = Math.min(end - start, 6);
  const rest = start + level;
  if (rest === line.length) return { level, content: "" };
  if (line[rest] === "#") {
    // More than six: only a run of `#` and white space is still a (empty) heading.
    let index = rest;
    while (line[index] === "#") index++;
    ctx.steps += index - rest;
    return skipSpace(line, index, ctx) === line.length ? { level, content: "" } : undefined;
  }
  if (!isSpace(line[rest])) return undefined;
  const from = skipSpace(line, rest, ctx);
  // The closing sequence: the longest suffix made of white space, then `#`s, then white space.
  let tail = line.length;
  while (tail > from && isSpace(line[tail - 1])) tail--;
  while (tail > from && line[tail - 1] === "#") tail--;
  while (tail > from && isSpace(line[tail - 1])) tail--;
  ctx.steps += line.length - tail;
  const content = line.slice(from, tail);
  return noLineTerminator(content, 0, ctx) ? { level, content } : undefined;
}

/** /^ {0,3}([-*_])(?:\s*\1){2,}\s*$/ */
export function isRule(line: string, ctx: StepCounter): boolean {
  const start = leadingSpaces(line);
  const char = line[start];
  if (start > 3 || (char !== "-" && char !== "*" && char !== "_")) return false;
  let count = 0;
  for (let index = start; index < line.length; index++) {
    ctx.steps++;
    const current = line[index];
    if (current === char) count++;
    else if (!isSpace(current)) return false;
  }
  return count >= 3;
}

/** /^ {0,3}>\s?(.*)$/: the quoted text, or undefined. */
export function matchQuote(line: string, ctx: StepCounter): string | undefined {
  const start = leadingSpaces(line);
  if (start > 3 || line[start] !== ">") return undefined;
  const after = start + 1;
  if (isSpace(line[after]) && noLineTerminator(line, after + 1, ctx)) return line.slice(after + 1);
  return noLineTerminator(line, after, ctx) ? line.slice(after) : undefined;
}

/** The text after a list marker: `\s+(.*)$`. */
function itemText(line: string, after: number, ctx: StepCounter): string | undefined {
  if (!isSpace(line[after])) return undefined;
  const from = skipSpace(line, after, ctx);
  return noLineTerminator(line, from, ctx) ? line.slice(from) : undefined;
}

/** /^ {0,3}[-*+]\s+(.*)$/: the item's text, or undefined. */
export function matchBullet(line: string, ctx: StepCounter): string | undefined {
  const start = leadingSpaces(line);
  const char = line[start];
  if (start > 3 || (char !== "-" && char !== "*" && char !== "+")) return undefined;
  return itemText(line, start + 1, ctx);
}

/** /^ {0,3}(\d{1,9})[.)]\s+(.*)$/: the number and the item's text, or undefined. */
export function matchOrdered(line: string, ctx: StepCounter): { start: number; content: string } | undefined {
  const start = leadingSpaces(line);
  if (start > 3) return undefined;
  let end = start;
  while (end - start < 10 && isDigit(line.charCodeAt(end))) end++;
  ctx.steps += end - start;
  if (end === start || end - start > 9 || (line[end] !== "." && line[end] !== ")")) return undefined;
  const content = itemText(line, end + 1, ctx);
  return content === undefined ? undefined : { start: Number(line.slice(start, end)), content };
}

/** The cells of a table row: outer pipes dropped, `\|` kept as a literal pipe, cells trimmed. */
export function splitRow(line: string, ctx: StepCounter): string[] {
  let text = line.trim();
  ctx.steps += line.length;
  if (text.startsWith("|")) text = text.slice(1);
  if (text.endsWith("|") && !text.endsWith("\\|")) text = text.slice(0, -1);
  const cells: string[] = [];
  let current = "";
  for (let index = 0; index < text.length; index++) {
    ctx.steps++;
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

const SEPARATOR_CELL = /^:?-+:?$/;

/** /^\s*\|?\s*:?-+:?\s*(\|\s*:?-+:?\s*)*\|?\s*$/ */
export function isTableSeparator(line: string, ctx: StepCounter): boolean {
  let text = line.trim();
  ctx.steps += line.length;
  if (text.startsWith("|")) text = text.slice(1);
  if (text.endsWith("|")) text = text.slice(0, -1);
  if (text === "") return false;
  return text.split("|").every((cell) => {
    ctx.steps += cell.length;
    return SEPARATOR_CELL.test(cell.trim());
  });
}
