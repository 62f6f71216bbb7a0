/**
 * Finds a BIP-39 seed phrase in normalised text: a run of at least 12 consecutive words from
 * the English wordlist, whatever the case and whatever punctuation, numbering or line breaks
 * stand between them ("1. abandon 2. ability ..."). Valid phrases have 12, 15, 18, 21 or 24
 * words, but any run of 12 or more is refused: a phrase with a typo, a missing word or a
 * neighbouring list word is still a secret. The checksum is deliberately not verified, for the
 * same reason. Ordinary English rarely strings 12 list words together, because the commonest
 * words ("the", "of", "and", "to", "a", "is", "it", "in") are not on the list.
 */
import { wordlist } from "@scure/bip39/wordlists/english";

export const MIN_SEED_PHRASE_WORDS = 12;

const ENGLISH_WORDS: ReadonlySet<string> = new Set(wordlist);
const LETTER_RUN = /\p{L}+/gu;

/**
 * Whether normalised text contains a run of at least 12 BIP-39 English words.
 *
 * @example
 * containsSeedPhrase("abandon ability able about above absent absorb abstract absurd abuse access accident"); // true
 * containsSeedPhrase("Please buy the cheapest weather report for Paris."); // false
 */
export function containsSeedPhrase(text: string): boolean {
  let run = 0;
  for (const match of text.toLowerCase().matchAll(LETTER_RUN)) {
    run = ENGLISH_WORDS.has(match[0]) ? run + 1 : 0;
    if (run >= MIN_SEED_PHRASE_WORDS) return true;
  }
  return false;
}
