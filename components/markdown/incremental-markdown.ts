/**
 * Parses streamed Markdown without parsing the finished part again. A block is finished once
 * a blank line and a complete line starting the next top-level block follow it: nothing
 * appended later can change it (block decisions look at most one line ahead, and the only
 * one that looks past a blank line, a list waiting for its next item, has seen that line).
 * Finished blocks are kept, as the same objects, and each update parses only the text after
 * them, so a stream of k chunks costs the total length plus k times the unfinished tail.
 */
import type { Block, StepCounter } from "./markdown-types";
import { parseBlocks } from "./parse-blocks";
import { splitLines } from "./parse-markdown";

export type IncrementalMarkdown = {
  /** The blocks of `text`, equal to parseMarkdown(text); reuses finished blocks when `text` extends the last one. */
  update(text: string): Block[];
  /** Characters handed to the parser so far (the unfinished tail of every update). */
  readonly parsedChars: number;
};

/** Where each line of `raw` starts, counting `\r\n`, `\r` and `\n` as one line ending each. */
function lineStarts(raw: string, ctx: StepCounter): number[] {
  const starts = [0];
  for (let index = 0; index < raw.length; index++) {
    ctx.steps++;
    const char = raw[index];
    if (char === "\r" && raw[index + 1] === "\n") index++;
    if (char === "\r" || char === "\n") starts.push(index + 1);
  }
  return starts;
}

export function createIncrementalMarkdown(counter?: StepCounter): IncrementalMarkdown {
  const ctx = counter ?? { steps: 0 };
  let text: string | undefined;
  let result: Block[] = [];
  /** The finished prefix of the text, and its blocks. */
  let stableText = "";
  let stable: Block[] = [];
  let parsedChars = 0;

  return {
    get parsedChars() {
      return parsedChars;
    },
    update(next: string): Block[] {
      if (next === text) return result;
      text = next;
      if (!next.startsWith(stableText)) {
        stableText = "";
        stable = [];
      }
      const tail = next.slice(stableText.length);
      parsedChars += tail.length;
      ctx.steps += tail.length;
      const lines = splitLines(tail);
      const starts: number[] = [];
      const blocks = parseBlocks(lines, 0, ctx, starts);

      // The last top-level block that starts on a complete line right after a blank line:
      // everything before it is finished.
      let finished = 0;
      for (let block = blocks.length - 1; block >= 1; block--) {
        ctx.steps++;
        const line = starts[block] as number;
        if (line < lines.length - 1 && (lines[line - 1] as string).trim() === "") {
          finished = block;
          break;
        }
      }
      if (finished > 0) {
        const offset = lineStarts(tail, ctx)[starts[finished] as number] as number;
        stableText = next.slice(0, stableText.length + offset);
        stable = stable.concat(blocks.slice(0, finished));
        result = stable.concat(blocks.slice(finished));
      } else {
        result = stable.concat(blocks);
      }
      return result;
    },
  };
}
