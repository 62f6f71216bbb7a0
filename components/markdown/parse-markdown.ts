/**
 * A small, safe Markdown subset for the assistant's answers: paragraphs, headings, lists,
 * block quotes, fenced code, rules, GitHub-style tables, and inline code, bold, italic,
 * strikethrough and links. It produces a tree, never HTML: the renderer turns the tree into
 * React elements, so raw HTML in the text stays text. Links survive only when they are
 * absolute http(s) URLs, and a link whose text is a URL or domain it does not go to shows its
 * real destination instead (link-label.ts). Half-written syntax (the stream is mid-sentence)
 * stays literal text.
 *
 * Why parsing takes linear time (the text comes from a model that other data can steer, so
 * it must not be able to make the page freeze):
 * - Blocks (parse-blocks.ts): each line is classified once per nesting level by a single
 *   forward scan (block-lines.ts, no backtracking regular expressions); block loops only move
 *   forward; quotes nest at most MAX_DEPTH levels, and tables pad at most MAX_TABLE_COLUMNS
 *   cells per row.
 * - Inline (parse-inline.ts): one pass per block. Where the old parser scanned to the end of
 *   the text for every `[`, `(`, backtick run or emphasis opener, it now looks the answer up
 *   in tables built by one or two passes (inline-tables.ts): bracket and parenthesis matching
 *   with a stack, the next backtick run of each length, the next valid closer of each
 *   delimiter. URL candidates (bare-urls.ts) cost their scheme and host, which no two share.
 * - Nested content (link labels, emphasis) is parsed again, but nested spans at one level are
 *   disjoint and nesting stops at MAX_DEPTH, so each character is seen at most MAX_DEPTH + 1
 *   times.
 * An optional StepCounter counts the work; parse-markdown.linear.test.ts checks it is at most
 * a small constant times the input length for hostile inputs.
 */
import type { Block, StepCounter } from "./markdown-types";
import { parseBlocks } from "./parse-blocks";

export type { Block, Inline, StepCounter, TableAlign } from "./markdown-types";
export { parseInline } from "./parse-inline";
export { safeLinkHref } from "./safe-link";

/** Splits text into lines the way every line ending (`\r\n`, `\r`, `\n`) counts as one. */
export function splitLines(source: string): string[] {
  return source.replace(/\r\n?/g, "\n").split("\n");
}

export function parseMarkdown(source: string, counter?: StepCounter): Block[] {
  const ctx = counter ?? { steps: 0 };
  ctx.steps += source.length;
  return parseBlocks(splitLines(source), 0, ctx);
}
