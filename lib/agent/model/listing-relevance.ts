/**
 * Which discovered listing fits a plain request, for the offline demo model: the request's
 * words against each listing's name, tags, path, declared inputs and description, weighted by
 * field (a name says more than a description) and capped per field, so a listing that stuffs
 * its description or tags with keywords gains little. A word counts once per listing, in the
 * best field it matches (a little more when other fields agree); a word most listings share
 * counts for less in the ranking. A listing fits only if the request's own topic words reach a
 * threshold there: values like "Paris" do not count, and what values imply ("crypto" for
 * "bitcoin") only supports. No service is named here: everything comes from the listings.
 */
import { parseUsdc } from "../../money";
import type { ServiceEntry } from "./listing-inputs";
import { inputsOf } from "./listing-inputs";
import type { RequestReading } from "./request-reading";
import { contentStems, matchStrength, relatedStems } from "./words";

const FIELDS = ["name", "tags", "path", "inputs", "description"] as const;
type Field = (typeof FIELDS)[number];

const WEIGHT: Record<Field, number> = { name: 5, tags: 4, path: 3, inputs: 2, description: 1 };
/** The most a field can add: two strong words' worth, so no field alone outweighs the others. */
const CAP: Record<Field, number> = { name: 10, tags: 8, path: 6, inputs: 4, description: 3 };
/** The fields that say what a listing is; a value ("Lisbon") counts only there. */
const IDENTITY: readonly Field[] = ["name", "tags", "path"];
/** Each further field naming the same word adds this: agreement, not repetition. */
const AGREEMENT_BONUS = 1;
/** A value is weaker evidence than a topic word. */
const VALUE_FACTOR = 0.5;
/** A match through a related word ("umbrella" for "weather") is weaker than the word itself. */
const RELATED_FACTOR = 0.75;
/** What a value implies ("crypto" for "bitcoin") only tips the balance. */
const IMPLIED_FACTOR = 0.25;
/**
 * In the ranking, a word of the topic phrase ("ethereum" in "an analysis on ethereum") says what
 * to ask about more than whom to ask: it counts for less than the words before it.
 */
const ARGUMENT_FACTOR = 0.6;

/** A listing fits when its topic words score at least this (a tag, a path word, or a name word)… */
export const FIT_THRESHOLD = 3;
/** …and it matched at least this share of the request's topic words. */
export const MIN_COVERAGE = 1 / 3;

export type RankedListing = {
  entry: ServiceEntry;
  /** Position in the discovery result: the tie-breaker. */
  index: number;
  /** For ranking: all matched words, a word shared by most listings counting less. */
  score: number;
  /** For the threshold: topic words only, without the ranking's discounts (what values imply aside). */
  topicScore: number;
  /** The request's topic words this listing matched. */
  matched: string[];
  fits: boolean;
};

type ListingWords = Record<Field, string[]>;

function listingWords(entry: ServiceEntry): ListingWords {
  const inputs = inputsOf(entry);
  let path = "";
  try {
    path = new URL(inputs.template || entry.resource || "").pathname.replace(/\/:[^/]+/g, "/");
  } catch {
    path = "";
  }
  return {
    name: contentStems(entry.name ?? ""),
    tags: (entry.tags ?? []).flatMap(contentStems),
    path: contentStems(path.replace(/[/_-]+/g, " ")),
    // Names and descriptions of the inputs, not their example values: an example says nothing
    // about what the service is for.
    inputs: inputs.fields.flatMap((field) => contentStems(`${field.name.replace(/[_.-]+/g, " ")} ${field.description ?? ""}`)),
    description: contentStems(entry.description ?? ""),
  };
}

type WordScore = { field: Field; points: number } | undefined;

/**
 * A word's points in one listing: the weight of the best field it matches, plus a little for
 * each other field that names it too (a listing whose name, path and own description agree on a
 * word is about it), all counted in the best field, under that field's cap.
 */
function scoreWord(word: string, words: ListingWords, fields: readonly Field[]): WordScore {
  let best: WordScore;
  let matches = 0;
  for (const field of fields) {
    const strength = matchStrength(word, words[field]);
    if (strength === 0) continue;
    matches += 1;
    const points = WEIGHT[field] * strength;
    if (!best || points > best.points) best = { field, points };
  }
  if (best && matches > 1) best = { field: best.field, points: best.points + AGREEMENT_BONUS * (matches - 1) };
  return best;
}

/** A topic word's score: as written, or through a plainer word it stands for, whichever is more. */
function scoreTopicWord(word: string, words: ListingWords): WordScore {
  let best = scoreWord(word, words, FIELDS);
  for (const related of relatedStems(word)) {
    const scored = scoreWord(related, words, FIELDS);
    if (scored && (!best || scored.points * RELATED_FACTOR > best.points)) best = { field: scored.field, points: scored.points * RELATED_FACTOR };
  }
  return best;
}

function capped(buckets: Record<Field, number>): number {
  return FIELDS.reduce((sum, field) => sum + Math.min(buckets[field], CAP[field]), 0);
}

const emptyBuckets = (): Record<Field, number> => ({ name: 0, tags: 0, path: 0, inputs: 0, description: 0 });

/**
 * Equally relevant listings, the cheapest first: a catalogue's order is whoever listed first,
 * and paying less is what a person would pick among equals. A price that does not read comes last.
 */
function cheaperFirst(left: ServiceEntry, right: ServiceEntry): number {
  const [a, b] = [parseUsdc(left.price ?? ""), parseUsdc(right.price ?? "")];
  if (a === b) return 0;
  if (a === undefined || b === undefined) return a === undefined ? 1 : -1;
  return a < b ? -1 : 1;
}

/** The listings, those that fit first, then best first (equals cheapest first, then in discovery's order). */
export function rankListings(
  reading: Pick<RequestReading, "topicWords" | "valueWords" | "argumentWords" | "impliedWords">,
  entries: readonly ServiceEntry[],
): RankedListing[] {
  const words = entries.map(listingWords);
  const aboutWords = new Set(reading.argumentWords);
  const count = entries.length;
  // How many listings a word matches: a word all of them share tells them apart least.
  const rarity = (word: string, fields: readonly Field[], alternatives: readonly string[] = []) => {
    const matching = words.filter((listing) =>
      fields.some((field) => [word, ...alternatives].some((candidate) => matchStrength(candidate, listing[field]) > 0)),
    ).length;
    return matching === 0 || count <= 1 ? 1 : Math.log(1 + count / matching) / Math.log(1 + count);
  };
  const topicWords = [...reading.topicWords, ...reading.impliedWords];
  const implied = new Set(reading.impliedWords);
  const topicRarity = new Map(topicWords.map((word) => [word, rarity(word, FIELDS, relatedStems(word))]));
  const valueRarity = new Map(reading.valueWords.map((word) => [word, rarity(word, IDENTITY)]));

  return (
    entries
      .map((entry, index) => {
        const listing = words[index]!;
        const ranked = emptyBuckets();
        const topic = emptyBuckets();
        const matched: string[] = [];
        for (const word of topicWords) {
          const scored = scoreTopicWord(word, listing);
          if (!scored) continue;
          matched.push(word);
          const points = implied.has(word) ? scored.points * IMPLIED_FACTOR : scored.points;
          topic[scored.field] += points;
          ranked[scored.field] += points * topicRarity.get(word)! * (aboutWords.has(word) ? ARGUMENT_FACTOR : 1);
        }
        for (const word of reading.valueWords) {
          const scored = scoreWord(word, listing, IDENTITY);
          if (scored) ranked[scored.field] += scored.points * VALUE_FACTOR * valueRarity.get(word)!;
        }
        const topicScore = capped(topic);
        // Unmatched words of the topic phrase ("renewable energy" in "headlines about renewable
        // energy") are what to ask about, so they do not count against the listing.
        const counted = topicWords.filter((word) => matched.includes(word) || !(aboutWords.has(word) || implied.has(word))).length;
        const coverage = counted === 0 ? 0 : matched.length / counted;
        // What the values imply supports a listing the request's own words found, never alone.
        const ownWords = matched.some((word) => !implied.has(word));
        return { entry, index, score: capped(ranked), topicScore, matched, fits: ownWords && topicScore >= FIT_THRESHOLD && coverage >= MIN_COVERAGE };
      })
      // Listings that fit come first: one that only matched a value ("Oslo") never outranks one
      // that does what is asked.
      .sort(
        (left, right) =>
          Number(right.fits) - Number(left.fits) ||
          right.score - left.score ||
          right.topicScore - left.topicScore ||
          cheaperFirst(left.entry, right.entry) ||
          left.index - right.index,
      )
  );
}

/** The best listing if it fits; otherwise nothing does. */
export function bestFit(ranked: readonly RankedListing[]): RankedListing | undefined {
  return ranked[0]?.fits ? ranked[0] : undefined;
}
