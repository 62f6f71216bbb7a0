import "server-only";
/**
 * A URL a client brings from elsewhere (an earlier session, its own notes) is matched against
 * the Bazaar before it is quoted or bought, as the chat's model finds it there first: a listed
 * service gets the stricter treatment (its declared input checked, its listed price a ceiling
 * for the agent wallet, its name shown). The list is the discovery client's own, cached briefly.
 */
import type { DiscoveryClient } from "../x402/discovery-client";

export async function refreshListing(discovery: Pick<DiscoveryClient, "find" | "lookup">, url: string, signal?: AbortSignal): Promise<void> {
  if (discovery.lookup(url)) return;
  // Discovery down leaves the URL unlisted: the unlisted-URL rule then decides, as in the chat.
  await discovery.find(undefined, signal).catch(() => undefined);
}
