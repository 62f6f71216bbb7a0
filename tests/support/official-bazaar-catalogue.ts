/**
 * The discovery catalogue of the official-packages world's facilitator, filled the way a real
 * Bazaar fills: from payments. Each verified v2 payment whose payload echoes the 402's
 * `extensions.bazaar` is read with `@x402/extensions`' own `extractDiscoveryInfo` (which
 * validates the declaration against its JSON schema) and listed under the resource URL it
 * answers. Listings have exactly the official `DiscoveryResource` shape, and pages the official
 * `DiscoveryResourcesResponse` shape; nothing is listed from configuration.
 */
import { extractDiscoveryInfo, type DiscoveryResource, type DiscoveryResourcesResponse } from "@x402/extensions/bazaar";
import type { PaymentPayload, PaymentRequirements } from "@x402/core/types";

/** Bounds on a page, as the official bazaar client asks for them (`limit`, `offset`). */
export const MAX_PAGE_SIZE = 100;
const DEFAULT_PAGE_SIZE = 100;

export type CataloguePage = { limit?: number; offset?: number; type?: string };

export class OfficialBazaarCatalogue {
  private readonly resources = new Map<string, DiscoveryResource>();

  /**
   * Catalogues the resource a payment was for, when its payload carries a valid bazaar
   * declaration; returns the listing, or undefined when there is nothing to catalogue.
   */
  addFromPayment(paymentPayload: PaymentPayload, requirements: PaymentRequirements, now = new Date()): DiscoveryResource | undefined {
    const discovered = extractDiscoveryInfo(paymentPayload, requirements, true);
    if (!discovered) return undefined;
    const bazaar = discovered.extensions?.bazaar;
    const listing: DiscoveryResource = {
      resource: discovered.resourceUrl,
      type: discovered.discoveryInfo.input.type,
      x402Version: discovered.x402Version,
      accepts: [requirements],
      lastUpdated: now.toISOString(),
      ...(discovered.description ? { description: discovered.description } : {}),
      ...(discovered.mimeType ? { mimeType: discovered.mimeType } : {}),
      ...(discovered.serviceName ? { serviceName: discovered.serviceName } : {}),
      ...(discovered.tags ? { tags: discovered.tags } : {}),
      ...(discovered.iconUrl ? { iconUrl: discovered.iconUrl } : {}),
      // Only the bazaar declaration is public: the other echoed extensions (a payment
      // identifier, a sign-in) belong to one payment, not to the service.
      ...(bazaar ? { extensions: { bazaar } } : {}),
    };
    this.resources.set(listing.resource, listing);
    return listing;
  }

  has(resource: string): boolean {
    return this.resources.has(resource);
  }

  /** One page of the list, newest listing last, as `GET /discovery/resources` answers it. */
  page(query: CataloguePage = {}): DiscoveryResourcesResponse {
    const limit = Math.min(Math.max(query.limit ?? DEFAULT_PAGE_SIZE, 1), MAX_PAGE_SIZE);
    const offset = Math.max(query.offset ?? 0, 0);
    const matching = [...this.resources.values()].filter((listing) => query.type === undefined || listing.type === query.type);
    return { x402Version: 2, items: matching.slice(offset, offset + limit), pagination: { limit, offset, total: matching.length } };
  }

  /**
   * The same page as the official bazaar facilitator example of the 2.10 packages listed it:
   * the declaration's `info` as a top-level `discoveryInfo`, no `extensions`. Facilitators of
   * that era are still deployed, so the agent must read both.
   */
  legacyPage(query: CataloguePage = {}): Omit<DiscoveryResourcesResponse, "items"> & { items: Record<string, unknown>[] } {
    const page = this.page(query);
    const items = page.items.map(({ extensions, ...listing }) => {
      const info = (extensions?.bazaar as { info?: unknown } | undefined)?.info;
      return info === undefined ? listing : { ...listing, discoveryInfo: info };
    });
    return { ...page, items };
  }
}
