/**
 * Inline syntax inside one block: code spans, links (a label that names another URL than the
 * link's shows the real one, link-label.ts), bare and angle-bracket URLs, strong,
 * emphasis, strikethrough, escapes and line breaks. One left-to-right pass; every closing
 * position comes from inline-tables.ts or bare-urls.ts in constant (amortised) time, and
 * nested content (a link's label, emphasised text) is parsed again only up to MAX_DEPTH.
 */
import { BareUrls } from "./bare-urls";
import { InlineTables, type Delimiter } from "./inline-tables";
import { honestLinkLabel } from "./link-label";
import { MAX_DEPTH, isSpace, isWordChar, type Inline, type StepCounter } from "./markdown-types";
import { safeLinkHref } from "./safe-link";

const ESCAPABLE = /[!-/:-@[-`{-~]/;

/** The scan inline-tables.ts replaces, kept for positions its tables do not describe. */
function scanBracket(text: string, open: number, ctx: StepCounter): number {
  let depth = 0;
  for (let index = open; index < text.length; index++) {
    ctx.steps++;
    const char = text[index];
    if (char === "\\") index++;
    else if (char === "[") depth++;
    else if (char === "]" && --depth === 0) return index;
  }
  return -1;
}

function scanRun(text: string, from: number, run: number, ctx: StepCounter): number {
  for (let index = from; index < text.length; index++) {
    ctx.steps++;
    if (text[index] !== "`") continue;
    let length = 0;
    while (text[index + length] === "`") length++;
    if (length === run) return index;
    index += length;
  }
  return -1;
}

/** A link destination's URL: `(url "title")` with the title and angle brackets removed. */
function destinationUrl(inside: string): string {
  let url = inside.trim();
  const quote = url.at(-1);
  if ((quote === '"' || quote === "'") && url.length >= 2) {
    const opening = url.lastIndexOf(quote, url.length - 2);
    if (opening > 0 && isSpace(url[opening - 1])) {
      let from = opening - 1;
      while (from > 0 && isSpace(url[from - 1])) from--;
      url = url.slice(0, from);
    }
  }
  return url.replace(/^<(.*)>$/, "$1");
}

export function parseInline(text: string, depth = 0, ctx: StepCounter = { steps: 0 }): Inline[] {
  const tables = new InlineTables(text, ctx);
  const urls = new BareUrls(text, ctx);
  const nodes: Inline[] = [];
  let buffer = "";
  const flush = () => {
    if (buffer) nodes.push({ type: "text", value: buffer });
    buffer = "";
  };
  const nested = (from: number, to: number): Inline[] => {
    const inner = text.slice(from, to);
    return depth >= MAX_DEPTH ? [{ type: "text", value: inner }] : parseInline(inner, depth + 1, ctx);
  };

  let index = 0;
  while (index < text.length) {
    ctx.steps++;
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
      ctx.steps += run;
      const runStart = text[index - 1] !== "`";
      const close = runStart || text[index - 2] !== "`" ? tables.nextRun(runStart ? index : index - 1, !runStart) : scanRun(text, index + run, run, ctx);
      if (close !== -1) {
        flush();
        let value = text.slice(index + run, close).replace(/\n/g, " ");
        ctx.steps += close - index;
        if (value.length > 2 && value.startsWith(" ") && value.endsWith(" ")) value = value.slice(1, -1);
        nodes.push({ type: "code", value });
        index = close + run;
        continue;
      }
      buffer += "`".repeat(run);
      index += run;
      continue;
    }

    if (char === "[") {
      let close = tables.bracket(index);
      if (close === -2) close = scanBracket(text, index, ctx);
      const end = close === -1 || text[close + 1] !== "(" ? -1 : tables.paren(close + 1);
      if (end !== -1) {
        flush();
        const label = nested(index + 1, close);
        // The destination, and the label once more for honestLinkLabel's look at its text.
        ctx.steps += end - index;
        const href = safeLinkHref(destinationUrl(text.slice(close + 2, end)));
        if (href) nodes.push({ type: "link", href, children: honestLinkLabel(label, href) });
        else nodes.push(...label);
        index = end + 1;
        continue;
      }
    }

    if (char === "<") {
      const link = urls.angle(index);
      if (link) {
        flush();
        nodes.push({ type: "link", href: link.href, children: [{ type: "text", value: link.url }] });
        index = link.end;
        continue;
      }
    }

    // A bare URL is linked, except as the destination of a link still being streamed.
    const inLinkDestination = text[index - 1] === "(" && text[index - 2] === "]";
    if ((char === "h" || char === "H") && !isWordChar(text[index - 1]) && !inLinkDestination) {
      const link = urls.bare(index);
      if (link) {
        flush();
        nodes.push({ type: "link", href: link.href, children: [{ type: "text", value: link.url }] });
        index += link.url.length;
        continue;
      }
    }

    if ((char === "*" || char === "_" || char === "~") && next === char) {
      const opensWord = char !== "_" || !isWordChar(text[index - 1]);
      const after = text[index + 2];
      if (opensWord && after !== undefined && !isSpace(after)) {
        const close = tables.closer((char + char) as Delimiter, index + 2);
        if (close !== -1) {
          flush();
          nodes.push({ type: char === "~" ? "del" : "strong", children: nested(index + 2, close) });
          index = close + 2;
          continue;
        }
      }
      buffer += char + char;
      index += 2;
      continue;
    }

    if (char === "*" || char === "_") {
      const opensWord = char !== "_" || !isWordChar(text[index - 1]);
      if (opensWord && next !== undefined && !isSpace(next)) {
        const close = tables.closer(char, index + 1);
        if (close !== -1) {
          flush();
          nodes.push({ type: "em", children: nested(index + 1, close) });
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
