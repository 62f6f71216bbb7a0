/**
 * Text as the safety checks (and the model) should see it: invisible characters removed and
 * compatibility forms folded (NFKC), so that a secret cannot hide behind zero-width spaces,
 * bidirectional overrides or full-width digits.
 */

// Format characters (Cf: zero-width space/joiners U+200B–U+200D, word joiner U+2060, BOM U+FEFF,
// bidi embeddings and isolates U+202A–U+202E and U+2066–U+2069, soft hyphen, tag characters, ...)
// plus the invisible characters that are not Cf: combining grapheme joiner, variation
// selectors and Hangul fillers.
const INVISIBLE_CHARACTERS = /[\p{Cf}\u034F\u115F\u1160\u3164\uFFA0\uFE00-\uFE0F\u{E0100}-\u{E01EF}]/gu;

/**
 * Removes invisible and bidirectional control characters and applies NFKC.
 *
 * @example
 * normalizeText("ab\u200Bcd");        // "abcd"
 * normalizeText("\u202Eevil\u202C");  // "evil"
 * normalizeText("０ｘ１２");          // "0x12"
 */
export function normalizeText(text: string): string {
  // Stripped before and after NFKC: folding can expose characters that were not there before.
  return text.replace(INVISIBLE_CHARACTERS, "").normalize("NFKC").replace(INVISIBLE_CHARACTERS, "");
}
