import "server-only";
/**
 * The guarded fetch's address rules for one connection target, in one place: the connector
 * applies them at connect time to the addresses it resolved, and discovery applies them to a
 * listing's URL before the model sees it (outbound-url-judge.ts). The payment network's own
 * servers come first, before the allowlist, which may well cover their host (the local world's
 * services share 127.0.0.1 with its chain and facilitator); then every address must be public
 * or allowlisted.
 */
import type { Infrastructure, InfrastructureTarget } from "./infrastructure";
import type { Allowlist } from "./outbound-allowlist";
import type { OutboundLookup } from "./outbound-lookup";
import { isPublicAddress } from "./public-address";

export type OutboundRules = {
  allowlist: Allowlist;
  /** Servers never connected to, whatever the allowlist says (infrastructure.ts). */
  infrastructure?: Infrastructure;
  /** Used only to resolve an infrastructure server named by a host name (infrastructure.ts). */
  lookup: OutboundLookup;
};

export type OutboundRefusal = { code: "infrastructure" } | { code: "blocked_address"; address: string };

/**
 * Why a connection to the target would be refused, or undefined when it would be allowed.
 *
 * @example
 * await outboundRefusal({ hostname: "10.0.0.1", port: 80, addresses: ["10.0.0.1"] }, rules); // { code: "blocked_address", address: "10.0.0.1" }
 */
export async function outboundRefusal(target: InfrastructureTarget, rules: OutboundRules): Promise<OutboundRefusal | undefined> {
  if (await rules.infrastructure?.includes(target, rules.lookup)) return { code: "infrastructure" };
  // One refused address refuses the host: a name that mixes public and private answers is
  // either misconfigured or an attack, and trying "the good one" would be a guess.
  const refused = target.addresses.find(
    (address) => !isPublicAddress(address) && !rules.allowlist.allows({ hostname: target.hostname, port: target.port, address }),
  );
  return refused === undefined ? undefined : { code: "blocked_address", address: refused };
}
