/** How outbound connections resolve host names: the guarded connector and the infrastructure check share it. */

export type ResolvedAddress = { address: string; family?: number };

/**
 * Resolves a host name to its addresses. The default uses the system resolver; tests inject
 * fakes that map public-looking names to private addresses.
 */
export type OutboundLookup = (hostname: string) => Promise<readonly ResolvedAddress[]>;
