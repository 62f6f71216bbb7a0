/**
 * Words as the offline demo model compares them: lower case, without the words every request
 * or listing has ("what", "please", "service"), each cut to a light stem so that "prices",
 * "pricing" and "price" are one word. Deterministic and small on purpose: it has to be right
 * often enough to route plain requests, and explainable when it is not.
 */

/**
 * Function words, request fillers and words every listing carries: they tell nothing apart.
 * Kept as a filled table (the formatter would put one word a line).
 */
// prettier-ignore
const STOP_WORDS = new Set([
  "a", "about", "advice", "after", "again", "all", "also", "am", "an", "and", "any", "anything", "api", "apis", "are", "around", "as", "at", "be",
  "been", "before", "best", "buy", "by", "can", "could", "current", "currently", "do", "does", "doing", "done", "each",
  "detail", "details", "endpoint", "every", "fetch", "find", "for", "from", "get", "gets", "getting", "give", "go", "good", "got", "great", "had", "has", "have", "hello",
  "help", "here", "hey", "hi", "how", "i", "i'd", "i'm", "idea", "ideas", "if", "in", "info", "information", "into", "is", "it", "it's", "its", "just", "know",
  "latest", "let", "like", "look", "looking", "lookup", "make", "many", "me", "more", "most", "much", "my", "need", "nice",
  "now", "of", "off", "on", "once", "one", "or", "other", "others", "another", "else", "our", "out", "over", "pay", "please", "purchase", "quick", "quickly",
  "recommendation", "recommendations", "right",
  "run", "say", "see", "send", "service", "services", "should", "show", "so", "some", "something", "suggestion", "suggestions", "tell", "thank", "thanks",
  "that", "the", "their", "them", "then", "there", "these", "they", "thing", "things", "this", "those", "tip", "tips", "to", "today",
  "tomorrow", "tonight", "too", "up", "us", "use", "using", "very", "want", "was", "we", "week", "weekend", "were", "what",
  "what's", "whats", "when", "where", "which", "who", "why", "will", "with", "would", "you", "your",
]);

const MAX_WORD_CHARS = 40;

/** Words ending in "s" that are not plurals. */
const NOT_PLURAL = new Set(["news", "series", "species", "lens", "gas", "chaos", "atlas", "canvas", "always", "perhaps"]);

/** Suffixes cut once, longest first, when at least four letters remain. */
const SUFFIXES = ["ings", "ions", "ing", "ion", "ers", "ors", "er", "or", "ed", "ly", "es", "e", "y"];

/** The words of a text, lower case, split at anything but letters, digits and an inner apostrophe. */
export function wordsOf(text: string): string[] {
  // "today's" is "today", "what's" is "what": the possessive and "is" tell nothing apart.
  // A "word" longer than any real one names nothing, and is not worth comparing.
  const words = text.toLowerCase().match(/[\p{L}\p{N}]+(?:['’][\p{L}]+)?/gu) ?? [];
  return words.filter((word) => word.length <= MAX_WORD_CHARS).map((word) => word.replace("’", "'").replace(/'s$/, ""));
}

/** A plural as its singular ("currencies" → "currency"), a word a search can match as written. */
export function singular(word: string): string {
  const lower = word.toLowerCase();
  if (lower.length <= 3 || NOT_PLURAL.has(lower)) return lower;
  if (lower.endsWith("ies")) return `${lower.slice(0, -3)}y`;
  if (/(ss|us|is)$/.test(lower) || !lower.endsWith("s")) return lower;
  return lower.slice(0, -1);
}

/** The content words of a text, each as its singular: a plainer query for a second search. */
export function plainQuery(text: string): string {
  return [
    ...new Set(
      wordsOf(text)
        .filter((word) => !STOP_WORDS.has(word) && !/^\d+$/.test(word) && word.length > 1)
        .map(singular),
    ),
  ].join(" ");
}

export function isStopWord(word: string): boolean {
  return STOP_WORDS.has(word.toLowerCase());
}

/** A light stem: plural and one common suffix cut, so word forms meet ("extractor", "extracts"). */
export function stem(word: string): string {
  let stemmed = word.toLowerCase().replace(/'s$/, "");
  if (stemmed.length <= 3 || /^\d/.test(stemmed)) return stemmed;
  if (stemmed.endsWith("ysis")) return stemmed.slice(0, -2);
  if (stemmed.endsWith("ies") && stemmed.length > 4) stemmed = `${stemmed.slice(0, -3)}y`;
  else if (stemmed.endsWith("s") && !/(ss|us|is)$/.test(stemmed) && !NOT_PLURAL.has(stemmed)) stemmed = stemmed.slice(0, -1);
  for (const suffix of SUFFIXES) {
    if (stemmed.endsWith(suffix) && stemmed.length - suffix.length >= 4) {
      stemmed = stemmed.slice(0, -suffix.length);
      break;
    }
  }
  // "analyze" and "analyse", "summarize" and "summarise": one spelling.
  return stemmed.replace(/yz$/, "ys").replace(/iz$/, "is");
}

/** The stems of a text's content words: no stop words, no bare numbers. */
export function contentStems(text: string): string[] {
  return wordsOf(text)
    .filter((word) => !STOP_WORDS.has(word) && !/^\d+$/.test(word) && word.length > 1)
    .map(stem);
}

/**
 * How well a stem matches one of a field's stems: 1 for the same stem, 0.5 for a shared start
 * of five letters or more covering four fifths of the shorter ("crypto" in "cryptocurrency",
 * not "transit" in "translate").
 */
export function matchStrength(stemmed: string, fieldStems: readonly string[]): number {
  let best = 0;
  for (const candidate of fieldStems) {
    if (candidate === stemmed) return 1;
    const shared = sharedPrefixLength(candidate, stemmed);
    if (shared >= 5 && shared >= 0.8 * Math.min(candidate.length, stemmed.length)) best = 0.5;
  }
  return best;
}

function sharedPrefixLength(left: string, right: string): number {
  let length = 0;
  while (length < left.length && length < right.length && left[length] === right[length]) length += 1;
  return length;
}

/**
 * Everyday words and the plainer words listings use for the same thing ("umbrella" is weather,
 * "subway" is transit, "worth" is a price). General vocabulary, not any catalogue's names: it
 * lets a plain request meet a listing that says it differently. A match through it counts less.
 */
const RELATED_WORDS: Record<string, string[]> = {
  weather: ["hot", "cold", "warm", "sunny", "cloudy", "umbrella", "snow", "snowing", "windy", "humid", "humidity", "storm", "degrees"],
  transit: ["transport", "metro", "subway", "bus", "buses", "tram", "train", "trains", "commute", "commuting"],
  food: ["eat", "eating", "restaurant", "restaurants", "dining", "dinner", "lunch", "breakfast", "cuisine", "dishes"],
  museum: ["gallery", "galleries", "exhibition", "exhibitions", "art"],
  park: ["garden", "gardens", "nature", "outdoors", "picnic"],
  travel: ["trip", "visit", "holiday", "vacation", "itinerary", "sightseeing", "tourist"],
  price: ["cost", "costs", "trading", "trade", "quote"],
  quote: ["price", "trading", "trade"],
  air: ["aqi", "smog", "pollution", "pollutant", "breathe", "breathing"],
  news: ["happening", "stories", "story", "press", "headline"],
  sentiment: ["mood", "opinion", "opinions", "feel", "feeling", "feelings"],
  keyword: ["terms", "term", "important", "tags", "topics"],
  exchange: ["convert", "conversion", "forex"],
  currency: ["money", "forex"],
  stock: ["equity", "equities", "share", "shares", "company"],
  crypto: ["coin", "coins", "token", "tokens", "cryptocurrency"],
  document: ["file", "record", "records", "scan", "scanned", "paper", "papers"],
  translate: ["translation", "language", "languages"],
  report: ["study", "research", "outlook", "briefing"],
};

const RELATED = (() => {
  const related = new Map<string, Set<string>>();
  for (const [word, others] of Object.entries(RELATED_WORDS)) {
    for (const other of others) {
      const key = stem(other);
      const set = related.get(key) ?? new Set<string>();
      set.add(stem(word));
      related.set(key, set);
    }
  }
  return related;
})();

/** The plainer stems a stem stands for ("umbrella" → "weath"), none for most words. */
export function relatedStems(stemmed: string): string[] {
  return [...(RELATED.get(stemmed) ?? [])].filter((other) => other !== stemmed);
}
