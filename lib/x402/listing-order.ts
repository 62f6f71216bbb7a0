/**
 * The order discovery answers in. Among equally relevant listings the cheapest comes first, then
 * the catalogue's order: a catalogue's own order is whatever its owner (or whoever listed first)
 * made it, and with nothing else to tell equals apart, paying less is what a person would pick.
 */
import type { ServiceListing } from "./discovery-listing";

/** Equally relevant listings (a whole list, say), cheapest first; equal prices keep their order. */
export function cheapestFirst(listings: readonly ServiceListing[]): ServiceListing[] {
  return listings
    .map((listing, index) => ({ listing, index }))
    .sort((a, b) => comparePrice(a.listing, b.listing) || a.index - b.index)
    .map((entry) => entry.listing);
}

/**
 * Keyword match for a facilitator without search: listings naming more of the query's words
 * (in name, tags, description or URL) first, the cheaper first among those naming as many;
 * listings naming none are left out.
 */
export function matchLocally(query: string, listings: readonly ServiceListing[]): ServiceListing[] {
  const words = [
    ...new Set(
      query
        .toLowerCase()
        .split(/[^\p{L}\p{N}]+/u)
        .filter((word) => word.length >= 2),
    ),
  ];
  if (words.length === 0) return cheapestFirst(listings);
  return listings
    .map((listing, index) => {
      const text = [listing.name, listing.description ?? "", listing.resource, ...listing.tags].join(" ").toLowerCase();
      return { listing, index, score: words.filter((word) => text.includes(word)).length };
    })
    .filter((entry) => entry.score > 0)
    .sort((a, b) => b.score - a.score || comparePrice(a.listing, b.listing) || a.index - b.index)
    .map((entry) => entry.listing);
}

function comparePrice(left: ServiceListing, right: ServiceListing): number {
  return left.amount === right.amount ? 0 : left.amount < right.amount ? -1 : 1;
}
