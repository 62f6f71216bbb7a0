/**
 * A foreign x402 v2 service with a path parameter: `GET /v1/stocks/:symbol/quote` with an
 * optional `currency` query parameter, declared with the bazaar extension's `pathParams` (an
 * example and a schema naming it required) and matched by @x402/core's own route patterns. The
 * resource server fills in the route template and the request's path values when it answers a
 * 402; the catalogue then lists the service by its template URL, as the bazaar's facilitator
 * extraction does.
 */
import { declareDiscoveryExtension, type DiscoveryResource } from "@x402/extensions/bazaar";
import type { Devnet } from "../../devnet";
import { close, listen, type ForeignService, type SeenRequest, type ServedRequest } from "./foreign-http";
import { catalogueEntryV2, exactUsdc, serveV2, startV2Routes } from "./foreign-v2";

export const QUOTE_PRICE = 20_000n; // 0.02 USDC

const ROUTE = /^\/v1\/stocks\/([^/]+)\/quote$/;
// Made-up prices: the test only needs the answer to show which symbol and currency were paid for.
const PRICES: Record<string, number> = { ACME: 12.5, NVDA: 120 };
const RATES: Record<string, number> = { USD: 1, EUR: 0.9 };

export async function startQuoteService(devnet: Devnet, payTo: `0x${string}`): Promise<{ service: ForeignService; listing: DiscoveryResource }> {
  const requests: SeenRequest[] = [];
  const served: ServedRequest[] = [];
  const http = await startV2Routes(devnet, {
    "GET /v1/stocks/:symbol/quote": {
      accepts: exactUsdc(devnet, payTo, QUOTE_PRICE),
      description: "Latest stock quote for a ticker symbol.",
      mimeType: "application/json",
      serviceName: "Ticker Quotes",
      tags: ["stocks", "quote", "finance"],
      extensions: declareDiscoveryExtension({
        input: { currency: "USD" },
        inputSchema: { properties: { currency: { type: "string", description: "Currency of the price, USD or EUR" } } },
        pathParams: { symbol: "ACME" },
        pathParamsSchema: { properties: { symbol: { type: "string", description: "Ticker symbol" } }, required: ["symbol"] },
        output: { example: { symbol: "ACME", price: 12.5, currency: "USD" } },
      }),
    },
  });
  const { server, origin } = await listen(async (request, response, url) => {
    const paid = Boolean(request.headers["payment-signature"]);
    requests.push({ method: request.method ?? "", path: `${url.pathname}${url.search}`, paid });
    const match = ROUTE.exec(url.pathname);
    if (!match) return void response.writeHead(404).end();
    if (request.method !== "GET") return void response.writeHead(405, { allow: "GET" }).end();
    await serveV2(http, request, response, url, () => {
      const symbol = decodeURIComponent(match[1] ?? "");
      const currency = url.searchParams.get("currency") ?? "USD";
      const price = PRICES[symbol];
      const rate = RATES[currency];
      if (price === undefined || rate === undefined) return { status: 404, body: { error: `no quote for ${symbol} in ${currency}` } };
      served.push({ method: "GET", path: `${url.pathname}${url.search}` });
      return { status: 200, body: { symbol, price: Math.round(price * rate * 100) / 100, currency } };
    });
  });
  try {
    // The facilitator saw one real request (an example symbol); its catalogue names the route.
    const listing = await catalogueEntryV2(`${origin}/v1/stocks/ACME/quote`, { method: "GET" });
    requests.length = 0;
    return {
      listing,
      service: { resource: listing.resource, host: new URL(origin).host, payTo, price: QUOTE_PRICE, requests, served, stop: () => close(server) },
    };
  } catch (error) {
    await close(server);
    throw error;
  }
}
