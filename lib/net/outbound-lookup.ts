import "server-only";
/** How the guarded fetch resolves a host name: the system resolver unless a test injects another. */
import { lookup as dnsLookup } from "node:dns/promises";

export type ResolvedAddress = { address: string; family?: number };

/**
 * Resolves a host name to its addresses. The default uses the system resolver; tests inject
 * fakes that map public-looking names to private addresses.
 */
export type OutboundLookup = (hostname: string) => Promise<readonly ResolvedAddress[]>;

export const systemLookup: OutboundLookup = (hostname) => dnsLookup(hostname, { all: true });
