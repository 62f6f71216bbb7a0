/**
 * The project's own documents stand alone: every relative link in README.md and the other
 * Markdown files resolves to a file of this repository, and every `#anchor` to a heading of that
 * file. Links to other sites are not fetched (no network here); they are listed, not checked.
 * The README is the newcomer's five-minute read, so its length is held here too.
 */
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { headingSlugs, markdownLinks } from "../support/markdown-links";

const root = path.resolve(__dirname, "../..");
const README_MAX_LINES = 300;

function markdownFiles(): string[] {
  const top = ["README.md", "SECURITY.md", "BENCHMARKS.md"].map((name) => path.join(root, name));
  const walk = (folder: string): string[] =>
    readdirSync(folder).flatMap((name) => {
      const full = path.join(folder, name);
      if (statSync(full).isDirectory()) return walk(full);
      return name.endsWith(".md") ? [full] : [];
    });
  return [...top, ...walk(path.join(root, "docs")), ...walk(path.join(root, "lib")), path.join(root, "devnet/README.md")].filter((file) => existsSync(file));
}

describe("documentation links", () => {
  const files = markdownFiles();

  it("finds the documents", () => {
    expect(files.map((file) => path.relative(root, file))).toEqual(expect.arrayContaining(["README.md", "docs/decisions.md", "docs/contract.md"]));
  });

  it.each(files.map((file) => [path.relative(root, file), file]))("%s: every relative link resolves", (_name, file) => {
    const broken: string[] = [];
    for (const link of markdownLinks(readFileSync(file, "utf8"))) {
      if (/^[a-z][a-z0-9+.-]*:/i.test(link)) continue; // another site: not fetched here
      const [target = "", anchor] = link.split("#", 2);
      const resolved = target === "" ? file : path.resolve(path.dirname(file), decodeURIComponent(target));
      if (!existsSync(resolved)) {
        broken.push(`${link}: no such file`);
        continue;
      }
      if (anchor && resolved.endsWith(".md") && !headingSlugs(readFileSync(resolved, "utf8")).has(anchor.toLowerCase())) {
        broken.push(`${link}: no heading with that anchor`);
      }
    }
    expect(broken).toEqual([]);
  });

  it(`keeps the README to at most ${README_MAX_LINES} lines, with the two commands at the top`, () => {
    const readme = readFileSync(path.join(root, "README.md"), "utf8");
    expect(readme.split("\n").length).toBeLessThanOrEqual(README_MAX_LINES);
    const firstSection = readme.slice(0, readme.indexOf("\n## ", readme.indexOf("## Two commands") + 1));
    expect(firstSection).toContain("npm install && npm run dev");
    expect(firstSection).toContain("npm install && npm test");
  });
});
