import { formatUsdc } from "../../lib/money";
import type { DiscoveryItem } from "../facilitator/discovery-catalog";
import type { ChannelServer } from "./channel-server";

/** A channel service's catalogue entry, as a facilitator records it from the service's own 402. */
export function channelDiscoveryItem({ service, url, accepts, extensions }: ChannelServer, lastUpdated: string): DiscoveryItem {
  return {
    resource: url,
    type: "http",
    x402Version: 2,
    accepts,
    lastUpdated,
    description: service.description,
    mimeType: "application/json",
    serviceName: service.serviceName,
    tags: service.tags,
    extensions,
    metadata: { name: service.name, path: service.path, price: formatUsdc(service.price), amount: service.price.toString(), offline: false },
  };
}

/** A channel service as the coordinates file describes it: `scheme: "batch-settlement"`, its per-call price and example call. */
export function channelCoordinatesEntry({ service, url, payTo, requirements }: ChannelServer) {
  const example = new URL(url);
  for (const [key, parameter] of Object.entries(service.parameters)) example.searchParams.set(key, parameter.example);
  return {
    name: service.name,
    url,
    price: formatUsdc(service.price),
    x402Version: 2 as const,
    path: service.path,
    amount: service.price.toString(),
    description: service.description,
    network: requirements.network,
    method: "GET" as const,
    queryParams: Object.fromEntries(Object.entries(service.parameters).map(([key, parameter]) => [key, parameter.example])),
    example: { url: example.toString() },
    offline: false,
    scheme: "batch-settlement" as const,
    payTo,
    channel: { minDeposit: service.minDeposit.toString(), withdrawDelaySeconds: Number(requirements.extra.withdrawDelay), behaviour: service.behaviour },
  };
}
