/** Helpers shared by the Markdown parser's tests. */
import type { Block, Inline } from "./markdown-types";

function inlineText(nodes: readonly Inline[]): string {
  return nodes
    .map((node) => {
      switch (node.type) {
        case "text":
        case "code":
          return node.value;
        case "break":
          return "\n";
        default:
          return inlineText(node.children);
      }
    })
    .join("");
}

/** The text a reader sees: every text, code and link label, without link targets. */
export function plainText(blocks: readonly Block[]): string {
  return blocks
    .map((block) => {
      switch (block.type) {
        case "paragraph":
        case "heading":
          return inlineText(block.children);
        case "code":
          return block.value;
        case "list":
          return block.items.map(inlineText).join("\n");
        case "quote":
          return plainText(block.children);
        case "rule":
          return "";
        case "table":
          return [block.header, ...block.rows].map((row) => row.map(inlineText).join(" ")).join("\n");
      }
    })
    .join("\n");
}

/** `pattern` repeated to exactly `length` characters. */
export function repeatTo(pattern: string, length: number): string {
  return pattern.repeat(Math.ceil(length / pattern.length)).slice(0, length);
}
