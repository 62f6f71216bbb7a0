/**
 * What the foreign world's x402 v2 services share, built from @x402/core and @x402/extensions
 * alone: a resource server that verifies and settles through the local world's facilitator,
 * the paid exchange around a service's answer, and the catalogue entry a facilitator records
 * from a service's own 402 (the bazaar package's own extraction decides it, route templates
 * included).
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import { decodePaymentRequiredHeader } from "@x402/core/http";
import { HTTPFacilitatorClient, x402HTTPResourceServer, x402ResourceServer, type HTTPRequestContext, type RouteConfig } from "@x402/core/server";
import type { PaymentPayload } from "@x402/core/types";
import { ExactEvmScheme } from "@x402/evm/exact/server";
import { bazaarResourceServerExtension, extractDiscoveryInfo, type DiscoveryResource } from "@x402/extensions/bazaar";
import type { Devnet } from "../../devnet";
import { NodeHttpAdapter } from "../../devnet/services/node-http-adapter";
import { sendJson } from "./foreign-http";

/** A resource server for `routes`, paid in the local world's USDC on its chain. */
export async function startV2Routes(devnet: Devnet, routes: Record<string, RouteConfig>): Promise<x402HTTPResourceServer> {
  const resourceServer = new x402ResourceServer(new HTTPFacilitatorClient({ url: devnet.facilitatorUrl }))
    .register(`eip155:${devnet.chainId}`, new ExactEvmScheme())
    .registerExtension(bazaarResourceServerExtension);
  const http = new x402HTTPResourceServer(resourceServer, routes);
  await http.initialize();
  return http;
}

/** The `exact` USDC payment option of a route: `price` base units to `payTo`. */
export function exactUsdc(devnet: Devnet, payTo: `0x${string}`, price: bigint): RouteConfig["accepts"] {
  return {
    scheme: "exact",
    network: `eip155:${devnet.chainId}`,
    payTo,
    price: { amount: price.toString(), asset: devnet.usdc, extra: { name: devnet.usdcName ?? "USD Coin", version: devnet.usdcVersion ?? "2" } },
    maxTimeoutSeconds: 120,
  };
}

/** A service's answer once its payment is verified: a 200 body is settled, anything else is not. */
export type Answer = { status: number; body: unknown };

/**
 * The v2 exchange for one request: no payment or a bad one gets the resource server's 402;
 * a verified one gets `answer()`, settled before it is sent only when it is a 200.
 */
export async function serveV2(http: x402HTTPResourceServer, request: IncomingMessage, response: ServerResponse, url: URL, answer: () => Answer): Promise<void> {
  const context: HTTPRequestContext = { adapter: new NodeHttpAdapter(request, url), path: url.pathname, method: request.method ?? "GET" };
  const result = await http.processHTTPRequest(context);
  if (result.type === "payment-error") return sendJson(response, result.response.status, result.response.body ?? {}, result.response.headers);
  if (result.type === "no-payment-required") throw new Error("the route is not protected");
  const produced = answer();
  if (produced.status !== 200) return sendJson(response, produced.status, produced.body);
  const text = JSON.stringify(produced.body);
  const settlement = await http.processSettlement(result.paymentPayload, result.paymentRequirements, result.declaredExtensions, {
    request: context,
    responseBody: Buffer.from(text),
  });
  if (!settlement.success) return sendJson(response, settlement.response.status, settlement.response.body ?? {}, settlement.response.headers);
  response.writeHead(200, { "content-type": "application/json", ...settlement.headers }).end(text);
}

/**
 * The catalogue entry of a v2 service as a facilitator records it: from the 402 it answered
 * `init` with, through the bazaar package's own extraction (which validates the declaration
 * against its schema and names a path-parameter route by its template), in the spec's
 * `DiscoveryResource` fields and no others.
 */
export async function catalogueEntryV2(url: string, init: RequestInit): Promise<DiscoveryResource> {
  const unpaid = await fetch(url, init);
  const header = unpaid.headers.get("payment-required");
  await unpaid.body?.cancel();
  if (unpaid.status !== 402 || !header) throw new Error(`${url} answered ${unpaid.status} without PAYMENT-REQUIRED`);
  const required = decodePaymentRequiredHeader(header);
  const [accepted] = required.accepts;
  if (!accepted) throw new Error(`${url} accepts nothing`);
  // A facilitator sees the extensions as a paying client echoes them; an honest client echoes the 402's.
  const payload: PaymentPayload = { x402Version: 2, resource: required.resource, accepted, payload: {}, extensions: required.extensions };
  const discovered = extractDiscoveryInfo(payload, accepted);
  if (!discovered) throw new Error(`${url} declares no valid bazaar discovery extension`);
  return {
    resource: discovered.resourceUrl,
    type: "http",
    x402Version: 2,
    accepts: required.accepts,
    lastUpdated: new Date().toISOString(),
    ...(discovered.description ? { description: discovered.description } : {}),
    ...(discovered.mimeType ? { mimeType: discovered.mimeType } : {}),
    ...(discovered.serviceName ? { serviceName: discovered.serviceName } : {}),
    ...(discovered.tags ? { tags: discovered.tags } : {}),
    ...(discovered.extensions ? { extensions: discovered.extensions } : {}),
  };
}
