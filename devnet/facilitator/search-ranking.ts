/**
 * Keyword search over discovery items: small, deterministic and good enough for a handful of
 * demo services. Each query word scores by the best field it matches (a name or tag match
 * beats a word buried in a description); the best total comes first.
 */
export type SearchableFields = {
  /** The service's short name and display name: the strongest signal. */
  names: string[];
  tags: string[];
  path: string;
  description: string;
};

const FIELD_WEIGHTS = { names: 5, tags: 3, path: 2, description: 1 } as const;
/** A query word that only starts a field word ("weath" for "weather") counts for less. */
const PREFIX_FACTOR = 0.5;

const STOP_WORDS = new Set([
  "a",
  "an",
  "and",
  "any",
  "about",
  "api",
  "are",
  "buy",
  "can",
  "do",
  "find",
  "for",
  "from",
  "get",
  "give",
  "i",
  "in",
  "is",
  "it",
  "me",
  "my",
  "need",
  "of",
  "on",
  "or",
  "please",
  "service",
  "services",
  "show",
  "some",
  "tell",
  "that",
  "the",
  "to",
  "want",
  "what",
  "whats",
  "which",
  "with",
]);

/** Lower-case words, without stop words, with a plural "s" trimmed ("headlines" matches "headline"). */
export function searchWords(text: string): string[] {
  return text
    .toLowerCase()
    .split(/[^\p{L}\p{N}]+/u)
    .filter((word) => word.length > 0 && !STOP_WORDS.has(word))
    .map(stem);
}

function stem(word: string): string {
  return word.length > 3 && word.endsWith("s") && !word.endsWith("ss") ? word.slice(0, -1) : word;
}

export function searchScore(query: string, fields: SearchableFields): number {
  const fieldWords = {
    names: fields.names.flatMap(searchWords),
    tags: fields.tags.flatMap(searchWords),
    path: searchWords(fields.path),
    description: searchWords(fields.description),
  };
  let score = 0;
  for (const word of new Set(searchWords(query))) {
    let best = 0;
    for (const [field, weight] of Object.entries(FIELD_WEIGHTS) as [keyof typeof FIELD_WEIGHTS, number][]) {
      const words = fieldWords[field];
      if (words.includes(word)) best = Math.max(best, weight);
      else if (word.length >= 3 && words.some((candidate) => candidate.startsWith(word))) best = Math.max(best, weight * PREFIX_FACTOR);
    }
    score += best;
  }
  return score;
}

/** The items that match at all, best first; ties keep their catalog order. */
export function rankBySearch<Item>(query: string, items: readonly Item[], fieldsOf: (item: Item) => SearchableFields): Item[] {
  return items
    .map((item, index) => ({ item, index, score: searchScore(query, fieldsOf(item)) }))
    .filter((entry) => entry.score > 0)
    .sort((left, right) => right.score - left.score || left.index - right.index)
    .map((entry) => entry.item);
}
