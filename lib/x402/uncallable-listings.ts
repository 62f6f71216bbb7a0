import "server-only";
/**
 * Listings the agent could never call, left out of discovery before a model chooses among them
 * (docs/decisions.md, "Discovery lists only what the agent can call"). A Bazaar is anyone's
 * catalogue: an entry at an address the guarded fetch refuses, at the payment network's own
 * servers, or at this app's own endpoints would only be chosen (listed first, or cheapest) and
 * then fail, or, for the app itself, call the agent back. The address rules are the guarded
 * fetch's own (lib/net/outbound-url-judge.ts); the guarded fetch still checks every call.
 */
import { compileInfrastructure, normalizeHostname, type Infrastructure } from "../net/infrastructure";
import { createOutboundUrlJudge, knownAddresses, type UrlRefusalCode } from "../net/outbound-url-judge";
import type { DroppedListings, DroppedReason } from "../stream";
import type { ServiceListing } from "./discovery-listing";

/** Why a listing's URL cannot be called, or undefined when it may be. */
export type ListingJudge = (resource: string) => Promise<DroppedReason | undefined>;

export type ListingJudgeOptions = {
  /** The service fetch's allowlist and infrastructure (the chain's RPC, the facilitator). */
  allowlist: readonly string[];
  infrastructure: readonly string[];
  /** This app's own origins (APP_URL): every path of them is the app, never a service. */
  ownOrigins: readonly string[];
};

export type SortedListings = { kept: ServiceListing[]; dropped: { listing: ServiceListing; reason: DroppedReason }[] };

const REASON_OF: Record<UrlRefusalCode, DroppedReason> = {
  infrastructure: "network-server",
  blocked_address: "refused-address",
  invalid_url: "refused-address",
  blocked_scheme: "refused-address",
  credentials_in_url: "refused-address",
};

/**
 * @example
 * const judge = createListingJudge({ allowlist: ["127.0.0.1:4021"], infrastructure: ["http://127.0.0.1:8545"], ownOrigins: ["https://agent.example"] });
 * await judge("http://10.0.0.1/weather");            // "refused-address"
 * await judge("http://127.0.0.1:8545/");             // "network-server"
 * await judge("https://agent.example/api/mcp");      // "this-app"
 * await judge("http://127.0.0.1:4021/weather");      // undefined
 */
export function createListingJudge(options: ListingJudgeOptions): ListingJudge {
  const judgeUrl = createOutboundUrlJudge({ allowlist: options.allowlist, infrastructure: options.infrastructure });
  // The app is a server like the network's own: one host and port, by any spelling.
  const app: Infrastructure | undefined = options.ownOrigins.length > 0 ? compileInfrastructure(options.ownOrigins) : undefined;
  const isApp = async (resource: string) => {
    if (!app || !URL.canParse(resource)) return false;
    const url = new URL(resource);
    const port = url.port === "" ? (url.protocol === "https:" ? 443 : 80) : Number(url.port);
    // Judged without resolving anything, as every listing is (outbound-url-judge.ts).
    return app.includes({ hostname: normalizeHostname(url.hostname), port, addresses: knownAddresses(url.hostname) }, async () => []);
  };
  return async (resource) => {
    const refusal = await judgeUrl(resource);
    if (refusal === "infrastructure") return REASON_OF.infrastructure;
    if (await isApp(resource)) return "this-app";
    return refusal === undefined ? undefined : REASON_OF[refusal];
  };
}

/** The listings the judge keeps, in their order, and those it drops with why. */
export async function sortCallable(listings: readonly ServiceListing[], judge: ListingJudge | undefined): Promise<SortedListings> {
  if (!judge) return { kept: [...listings], dropped: [] };
  const reasons = await Promise.all(listings.map((listing) => judge(listing.resource)));
  const sorted: SortedListings = { kept: [], dropped: [] };
  listings.forEach((listing, index) => {
    const reason = reasons[index];
    if (reason === undefined) sorted.kept.push(listing);
    else sorted.dropped.push({ listing, reason });
  });
  return sorted;
}

/** How many were dropped per reason; reasons with none are absent. */
export function countDropped(dropped: SortedListings["dropped"]): DroppedListings {
  const counts: DroppedListings = {};
  for (const { reason } of dropped) counts[reason] = (counts[reason] ?? 0) + 1;
  return counts;
}

/** Two counts as one (a discovery of services and one of MCP tools). */
export function addDropped(left: DroppedListings, right: DroppedListings): DroppedListings {
  const sum: DroppedListings = { ...left };
  for (const [reason, count] of Object.entries(right) as [DroppedReason, number][]) sum[reason] = (sum[reason] ?? 0) + count;
  return sum;
}

const REASON_WORDS: Record<DroppedReason, string> = {
  "refused-address": "at an address this server does not call",
  "network-server": "at the payment network's own servers",
  "this-app": "at this app's own endpoints",
  unreachable: "that did not answer",
  unpayable: "whose terms this deployment cannot pay",
  "price-above-listing": "asking more than they list",
  failing: "failing before any payment",
};

const UNCALLABLE: readonly DroppedReason[] = ["refused-address", "network-server", "this-app"];

/** One sentence saying what was left out and why ("" when nothing was). */
export function droppedNote(dropped: DroppedListings): string {
  const entries = Object.entries(dropped) as [DroppedReason, number][];
  const words = (list: [DroppedReason, number][]) => list.map(([reason, count]) => `${count} ${REASON_WORDS[reason]}`).join(", ");
  const uncallable = entries.filter(([reason]) => UNCALLABLE.includes(reason));
  const unbuyable = entries.filter(([reason]) => !UNCALLABLE.includes(reason));
  return [
    uncallable.length > 0 ? `Left out listings the agent cannot call: ${words(uncallable)}.` : "",
    unbuyable.length > 0 ? `Left out listings that cannot be bought now: ${words(unbuyable)}.` : "",
  ]
    .filter(Boolean)
    .join(" ");
}
