/**
 * Numbers in a plain request and the unit each counts ("2 days", "a week", "top 3"), for the
 * demo model's call planner to match against a listing's numeric inputs.
 */
import { COUNTABLE_AFTER_ARTICLE, FUNCTION_WORDS, NUMBER_WORDS } from "./request-vocabulary";
import { stem } from "./words";

export type NumberMention = {
  value: number;
  /** The stem of the word that follows (or precedes, as in "top 3"): "day" in "2 days". */
  unit?: string;
};

export function findNumbers(request: string): NumberMention[] {
  const mentions: NumberMention[] = [];
  const words = Object.keys(NUMBER_WORDS).join("|");
  const pattern = new RegExp(`(?<![\\p{L}\\p{N}.-])(?:(\\d{1,9}(?:\\.\\d+)?)|(${words})(?![\\p{L}\\p{N}]))(?:\\s*-\\s*|\\s+)?(\\p{L}+)?`, "giu");
  for (const match of request.matchAll(pattern)) {
    const raw = (match[1] ?? match[2]!).toLowerCase();
    const unitWord = match[3]?.toLowerCase();
    const unit = unitWord && !FUNCTION_WORDS.has(unitWord) ? stem(unitWord) : undefined;
    const isDigits = /^\d/.test(raw);
    // "a"/"an"/"one" count only before a unit of time ("a week"), not as articles.
    if (!isDigits && (!unit || (NUMBER_WORDS[raw] === 1 && !COUNTABLE_AFTER_ARTICLE.has(unit)))) continue;
    mentions.push({ value: isDigits ? Number(raw) : NUMBER_WORDS[raw]!, ...(unit ? { unit } : {}) });
  }
  // "top 3", "limit 5": the unit comes first.
  for (const match of request.matchAll(/\b(top|limit|first|max|maximum|at most|up to)\s+(\d{1,9})\b/gi)) {
    mentions.push({ value: Number(match[2]), unit: stem(match[1]!.toLowerCase()) });
  }
  return mentions;
}
