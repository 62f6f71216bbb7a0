/**
 * Finds a private key written in pieces, in normalised text: 64 hex digits split into groups by
 * any separators, as wallets print keys, terminals wrap them and people retype them
 * (`4c08 83a6 …`, `0x4c08-83a6-…`, `4c0883a6.9102937d…`, `4c:08:83:…`, one group per line,
 * or a mix). A separator is any run of white space and punctuation, which covers spaces, tabs,
 * line breaks, dashes (ASCII or Unicode, NFKC leaves most Unicode dashes as they are),
 * dots, underscores, colons, commas, slashes, brackets and quotes; the minus sign (U+2212, a
 * math symbol) counts too. Other symbols (`|`, `+`, `=`) end a run: a Markdown table's cells
 * are not one number.
 *
 * A run of hex-only words joined by separators holds a key when some consecutive words in it
 * add up to exactly 64 hex digits and mix digits and letters (at least 8 of each), which prose,
 * hex-letter words ("a bad cafe") and number lists (dates, times, amounts, card numbers)
 * never do. What keeps the false positives out:
 * - the sum must be exact: two 0x hashes side by side ("0xaa…, 0xbb…") are 128 digits,
 *   never 64, and each alone is the whole-key rule's business (and its `tx`/`hash` exception);
 * - `0x` may only open a run, so a list of shortened hashes (`0x1234abcd…9876fedc, 0x…`, as
 *   the chat page sends its history) never joins into one;
 * - UUIDs, IPv6 and MAC addresses end a run (hex-identifiers.ts), so a list of them is not a
 *   key either;
 * - a word that is not all hex (most words, and a date-time such as `12T10`) ends a run.
 * A random key fails the mix requirement about once in 500,000 keys; such a key is caught
 * whole but not split.
 */
import { identifierTokens } from "./hex-identifiers";

const KEY_DIGITS = 64;
const MIN_DIGITS = 8;
const MIN_LETTERS = 8;
// Letters of any script (with their marks) and digits: `é` inside "café" keeps it one word
// that is not hex, instead of leaving "caf" behind.
const WORD = /[\p{L}\p{M}\p{N}]+/gu;
const HEX_WORD = /^(0x)?([0-9a-f]+)$/i;
const SEPARATOR = /^[\s\p{P}\u2212]+$/u;

/** Runs of hex words joined by separators, as the hex digits of each word (no `0x`). */
function hexRuns(text: string): string[][] {
  const values: string[] = [];
  const gaps: string[] = [];
  let previousEnd = 0;
  for (const word of text.matchAll(WORD)) {
    values.push(word[0]);
    gaps.push(text.slice(previousEnd, word.index));
    previousEnd = word.index + word[0].length;
  }
  gaps.push(text.slice(previousEnd));
  const identifiers = identifierTokens(values, gaps);

  const runs: string[][] = [];
  let current: string[] = [];
  values.forEach((value, index) => {
    const match = identifiers[index] ? null : HEX_WORD.exec(value);
    const joined = index > 0 && SEPARATOR.test(gaps[index] ?? "");
    if (!match || !joined || (match[1] !== undefined && current.length > 0)) {
      if (current.length > 1) runs.push(current);
      current = [];
    }
    if (match) current.push(match[2] ?? "");
  });
  if (current.length > 1) runs.push(current);
  return runs;
}

function mixesDigitsAndLetters(hex: string): boolean {
  const digits = hex.replace(/[^0-9]/g, "").length;
  return digits >= MIN_DIGITS && hex.length - digits >= MIN_LETTERS;
}

/** Whether two or more consecutive pieces of the run make a key. */
function holdsKey(run: readonly string[]): boolean {
  for (let first = 0; first < run.length - 1; first += 1) {
    let hex = run[first] ?? "";
    // Every piece holds at least one hex digit, so each start looks at no more than 64 pieces.
    for (let last = first + 1; last < run.length && hex.length < KEY_DIGITS; last += 1) {
      hex += run[last] ?? "";
      if (hex.length === KEY_DIGITS && mixesDigitsAndLetters(hex)) return true;
    }
  }
  return false;
}

/**
 * Whether normalised text holds 64 hex digits split into groups by separators.
 *
 * @example
 * containsSplitKey("4c08-83a6-9102-937d-6231-471b-5dbb-6204-fe51-2961-7082-792a-e468-d01a-3f36-2318"); // true
 * containsSplitKey("ids 550e8400-e29b-41d4-a716-446655440000, 6ba7b810-9dad-11d1-80b4-00c04fd430c8");   // false
 */
export function containsSplitKey(text: string): boolean {
  return hexRuns(text).some(holdsKey);
}
