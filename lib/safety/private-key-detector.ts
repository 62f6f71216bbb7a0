/**
 * Finds an EVM private key (32 bytes as 64 hex digits) in normalised text.
 *
 * A transaction hash is also 32 bytes of hex, and the two cannot be told apart by looking at
 * them. The rule chosen:
 *
 * - 64 hex digits standing alone (not part of a longer word), with or without `0x`, are a key;
 * - EXCEPT when written with `0x` and one of the few words before it names a transaction or hash
 *   ("tx", "txHash", "transaction", "hash", "block", or a `/tx/` explorer link), because that is
 *   how people quote hashes; but a mention of "private", "secret", "key", "seed" or "mnemonic"
 *   in the same words cancels the exception;
 * - a key split by spaces or line breaks into chunks (as wallets print it or as a terminal wraps
 *   it) is a key when the whitespace-separated chunks add up to exactly 64 hex digits and mix
 *   digits and letters (at least 8 of each), which ordinary words and number lists never do.
 */

type Token = { value: string; start: number; end: number };

const WORD_TOKEN = /[0-9A-Za-z_]+/g;
const KEY_TOKEN = /^(0x)?[0-9a-f]{64}$/i;
const HEX_CHUNK = /^(0x)?([0-9a-f]+)$/i;
const CONTEXT_WORDS = 5;
const HASH_CONTEXT = /^tx|transaction|hash|^block$/;
const SECRET_CONTEXT = /private|secret|mnemonic|seed|^key$|_key$|^pk$|privkey/;
const MIN_DIGITS_WHEN_SPLIT = 8;
const MIN_LETTERS_WHEN_SPLIT = 8;

function tokenize(text: string): Token[] {
  return Array.from(text.matchAll(WORD_TOKEN), (match) => ({
    value: match[0],
    start: match.index,
    end: match.index + match[0].length,
  }));
}

function isQuotedAsHash(tokens: Token[], index: number): boolean {
  const before = tokens.slice(Math.max(0, index - CONTEXT_WORDS), index).map((token) => token.value.toLowerCase());
  return before.some((word) => HASH_CONTEXT.test(word)) && !before.some((word) => SECRET_CONTEXT.test(word));
}

function hasWholeKey(tokens: Token[]): boolean {
  return tokens.some((token, index) => {
    const match = KEY_TOKEN.exec(token.value);
    if (!match) return false;
    const prefixed = match[1] !== undefined;
    return !(prefixed && isQuotedAsHash(tokens, index));
  });
}

function looksLikeSplitKey(hex: string): boolean {
  const digits = hex.replace(/[^0-9]/g, "").length;
  return digits >= MIN_DIGITS_WHEN_SPLIT && hex.length - digits >= MIN_LETTERS_WHEN_SPLIT;
}

/** Runs of hex-only tokens separated by nothing but whitespace. */
function hexRuns(text: string, tokens: Token[]): string[][] {
  const runs: string[][] = [];
  let current: string[] = [];
  let previous: Token | undefined;
  for (const token of tokens) {
    const match = HEX_CHUNK.exec(token.value);
    const joined = previous !== undefined && /^\s+$/.test(text.slice(previous.end, token.start));
    // "0x" may only open a run; mid-run it starts a new one.
    if (!match || !joined || (match[1] !== undefined && current.length > 0)) {
      if (current.length > 1) runs.push(current);
      current = [];
    }
    if (match) current.push(match[2] ?? "");
    previous = match ? token : undefined;
  }
  if (current.length > 1) runs.push(current);
  return runs;
}

function hasSplitKey(text: string, tokens: Token[]): boolean {
  for (const run of hexRuns(text, tokens)) {
    for (let first = 0; first < run.length; first += 1) {
      let hex = run[first] ?? "";
      for (let last = first + 1; last < run.length && hex.length < 64; last += 1) {
        hex += run[last] ?? "";
        if (hex.length === 64 && looksLikeSplitKey(hex)) return true;
      }
    }
  }
  return false;
}

/**
 * Whether normalised text contains something that must be treated as a private key.
 *
 * @example
 * containsPrivateKey("my key is 4c0883a69102937d6231471b5dbb6204fe5129617082792ae468d01a3f362318"); // true
 * containsPrivateKey("tx hash 0x88df016429689c079f3b2f6ad39fa052532c56795b733da78a91ebe6a713944b");    // false
 */
export function containsPrivateKey(text: string): boolean {
  const tokens = tokenize(text);
  return hasWholeKey(tokens) || hasSplitKey(text, tokens);
}
