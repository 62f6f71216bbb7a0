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
 * - a key split into groups by any separators (spaces, line breaks, dashes, dots, colons, ...)
 *   is a key when consecutive groups add up to exactly 64 hex digits and mix digits and letters
 *   (split-key-detector.ts, which also says what keeps UUIDs, addresses and hash lists out).
 */
import { containsSplitKey } from "./split-key-detector";

const WORD_TOKEN = /[0-9A-Za-z_]+/g;
const KEY_TOKEN = /^(0x)?[0-9a-f]{64}$/i;
const CONTEXT_WORDS = 5;
const HASH_CONTEXT = /^tx|transaction|hash|^block$/;
const SECRET_CONTEXT = /private|secret|mnemonic|seed|^key$|_key$|^pk$|privkey/;

function isQuotedAsHash(words: readonly string[], index: number): boolean {
  const before = words.slice(Math.max(0, index - CONTEXT_WORDS), index).map((word) => word.toLowerCase());
  return before.some((word) => HASH_CONTEXT.test(word)) && !before.some((word) => SECRET_CONTEXT.test(word));
}

function hasWholeKey(words: readonly string[]): boolean {
  return words.some((word, index) => {
    const match = KEY_TOKEN.exec(word);
    if (!match) return false;
    const prefixed = match[1] !== undefined;
    return !(prefixed && isQuotedAsHash(words, index));
  });
}

/**
 * Whether normalised text contains something that must be treated as a private key.
 *
 * @example
 * containsPrivateKey("my key is 4c0883a69102937d6231471b5dbb6204fe5129617082792ae468d01a3f362318"); // true
 * containsPrivateKey("tx hash 0x88df016429689c079f3b2f6ad39fa052532c56795b733da78a91ebe6a713944b");    // false
 * containsPrivateKey("4c0883a6-9102937d-6231471b-5dbb6204-fe512961-7082792a-e468d01a-3f362318");   // true
 */
export function containsPrivateKey(text: string): boolean {
  return hasWholeKey(text.match(WORD_TOKEN) ?? []) || containsSplitKey(text);
}
