/**
 * A field's declared set of values (`enum`, read by declared-fields.ts) as the usage line
 * writes it, `one of: sales, traffic`, and read back from it (the offline demo model reads
 * listings as a real model does, from their usage line). A value is written bare when it is a
 * plain word that reads back as itself, else as a JSON string with `<` and `>` escaped, so the
 * list stays inside its `name=<…>` and a value can never pass for `required` or a number.
 */
import type { Choice } from "./input-contract";

/** A longer set is written as its size alone: the usage line stays short, the check still holds the call to it. */
const MAX_CHOICES_WRITTEN = 20;
const MAX_CHOICES_TEXT_CHARS = 300;
const PLAIN = /^[\p{L}\p{N}][\p{L}\p{N}_.+-]*$/u;
const ITEM = /^(?:"(?:[^"\\]|\\.)*"|[\p{L}\p{N}][\p{L}\p{N}_.+-]*|-?\d+(?:\.\d+)?(?:e[+-]?\d+)?)/iu;

/**
 * @example
 * choicesText(["sales", "traffic"]); // "one of: sales, traffic"
 * choicesText(["10", 10, "a b"]); // 'one of: "10", 10, "a b"'
 */
export function choicesText(choices: readonly Choice[]): string {
  const written = `one of: ${choices.map(choiceText).join(", ")}`;
  return choices.length <= MAX_CHOICES_WRITTEN && written.length <= MAX_CHOICES_TEXT_CHARS ? written : `one of ${choices.length} values`;
}

/** One value as the usage line writes it. */
export function choiceText(choice: Choice): string {
  if (typeof choice === "number") return String(choice);
  const plain = PLAIN.test(choice) && !looksLikeNumber(choice) && choice.toLowerCase() !== "required";
  return plain ? choice : JSON.stringify(choice).replace(/</g, "\\u003c").replace(/>/g, "\\u003e");
}

/**
 * The set a usage detail starts with (`one of: a, b, required, e.g. a: …`), and the rest of
 * the detail after it; `undefined` when it starts with none. A set written as its size alone,
 * or cut short, is read as no set.
 */
export function readChoicesText(detail: string): { choices?: Choice[]; rest: string } | undefined {
  const counted = /^one of \d+ values/.exec(detail);
  if (counted) return { rest: detail.slice(counted[0].length) };
  if (!detail.startsWith("one of: ")) return undefined;
  let rest = detail.slice("one of: ".length);
  const choices: Choice[] = [];
  for (;;) {
    const item = ITEM.exec(rest)?.[0];
    const after = item === undefined ? undefined : rest.slice(item.length);
    // A list cut short (the usage line is bounded) or not ours is no set: it would be a part of one.
    if (item === undefined || after === undefined || !/^(?:, |: |$)/.test(after)) return { rest };
    choices.push(parsedItem(item));
    rest = after;
    if (!rest.startsWith(", ") || /^, (?:required(?=, |: |$)|e\.g\. )/.test(rest)) return { choices, rest };
    rest = rest.slice(2);
  }
}

function parsedItem(item: string): Choice {
  if (item.startsWith('"')) {
    try {
      return JSON.parse(item) as string;
    } catch {
      return item;
    }
  }
  return looksLikeNumber(item) ? Number(item) : item;
}

function looksLikeNumber(text: string): boolean {
  return text.trim() !== "" && Number.isFinite(Number(text));
}
