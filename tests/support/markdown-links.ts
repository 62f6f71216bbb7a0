/**
 * The links of a Markdown text and the anchors of its headings, as GitHub renders them: enough
 * to check that a repository's own documents point at things that exist. Code (fenced blocks and
 * inline spans) is skipped, since a `](…)` there is an example, not a link.
 */

/** Link targets of `[text](target)` and `[text](target "title")`, outside code. */
export function markdownLinks(markdown: string): string[] {
  const links: string[] = [];
  for (const line of proseLines(markdown)) {
    const prose = line.replace(/`[^`]*`/g, "");
    for (const match of prose.matchAll(/\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)) {
      if (match[1]) links.push(match[1]);
    }
  }
  return links;
}

/** GitHub's anchors for a document's headings: lower case, punctuation dropped, spaces as `-`, repeats numbered. */
export function headingSlugs(markdown: string): Set<string> {
  const slugs = new Set<string>();
  const seen = new Map<string, number>();
  for (const line of proseLines(markdown)) {
    const heading = /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line);
    if (!heading?.[1]) continue;
    const base = heading[1]
      .toLowerCase()
      .replace(/[^\p{Letter}\p{Number}\s_-]/gu, "")
      .replace(/\s/g, "-");
    const count = seen.get(base) ?? 0;
    seen.set(base, count + 1);
    slugs.add(count === 0 ? base : `${base}-${count}`);
  }
  return slugs;
}

function proseLines(markdown: string): string[] {
  const lines: string[] = [];
  let inFence = false;
  for (const line of markdown.split("\n")) {
    if (/^\s*(```|~~~)/.test(line)) {
      inFence = !inFence;
      continue;
    }
    if (!inFence) lines.push(line);
  }
  return lines;
}
