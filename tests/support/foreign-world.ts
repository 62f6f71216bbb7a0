/**
 * A world that is not ours: a paid POST service built only from @x402/core's resource server
 * and @x402/extensions' bazaar declaration (method, JSON body with its schema and example), and
 * a discovery server that answers exactly the bazaar spec's response shapes (`items` with offset
 * pagination for the list, `resources` with `partialResults` and a cursor for the search) and
 * nothing else. Payments settle through the local world's facilitator on its chain, so the
 * chain can show what moved. Used to show the agent works against the spec, not against our own
 * devnet's habits. Loopback only, ports chosen by the system.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { HTTPFacilitatorClient, x402HTTPResourceServer, x402ResourceServer, type HTTPRequestContext, type RouteConfig } from "@x402/core/server";
import { ExactEvmScheme } from "@x402/evm/exact/server";
import { bazaarResourceServerExtension, declareDiscoveryExtension } from "@x402/extensions/bazaar";
import type { Devnet } from "../../devnet";
import { NodeHttpAdapter } from "../../devnet/services/node-http-adapter";

export const TRANSLATE_PRICE = 30_000n; // 0.03 USDC

export type ForeignWorld = {
  /** Where the discovery server answers (`/discovery/resources`, `/discovery/search`). */
  bazaarUrl: string;
  translateUrl: string;
  payTo: `0x${string}`;
  /** The JSON bodies the paid service received with a verified payment, in order. */
  paidBodies: unknown[];
  /** Every request the paid service received: method and whether it carried a payment. */
  requests: { method: string; paid: boolean }[];
  stop(): Promise<void>;
};

export async function startForeignWorld(devnet: Devnet, payTo: `0x${string}`): Promise<ForeignWorld> {
  const network = `eip155:${devnet.chainId}` as const;
  const paidBodies: unknown[] = [];
  const requests: { method: string; paid: boolean }[] = [];
  const services = await listen();
  const servicesUrl = `http://127.0.0.1:${(services.address() as AddressInfo).port}`;
  const translateUrl = `${servicesUrl}/v1/translate`;

  const resourceServer = new x402ResourceServer(new HTTPFacilitatorClient({ url: devnet.facilitatorUrl }))
    .register(network, new ExactEvmScheme())
    .registerExtension(bazaarResourceServerExtension);
  const paymentOption = {
    scheme: "exact",
    network,
    payTo,
    price: { amount: TRANSLATE_PRICE.toString(), asset: devnet.usdc, extra: { name: devnet.usdcName ?? "USD Coin", version: devnet.usdcVersion ?? "2" } },
    maxTimeoutSeconds: 120,
  };
  const extensions = declareDiscoveryExtension({
    bodyType: "json",
    input: { text: "Good morning", to: "fr" },
    inputSchema: {
      properties: { text: { type: "string", description: "Text to translate" }, to: { type: "string", description: "Target language code" } },
      required: ["text", "to"],
    },
    output: { example: { translation: "Bonjour", to: "fr" } },
  });
  const route: RouteConfig = {
    accepts: paymentOption,
    description: "Translates a short text into another language.",
    mimeType: "application/json",
    serviceName: "Lingo Translate",
    tags: ["translate", "language"],
    extensions,
  };
  const http = new x402HTTPResourceServer(resourceServer, { "POST /v1/translate": route });
  await http.initialize();
  const listing: Record<string, unknown> = {
    resource: translateUrl,
    type: "http",
    x402Version: 2,
    accepts: [],
    lastUpdated: new Date().toISOString(),
    description: route.description,
    mimeType: "application/json",
    serviceName: "Lingo Translate",
    tags: ["translate", "language"],
  };

  services.on("request", (request, response) => {
    handleService(request, response).catch(() => {
      if (!response.headersSent) response.writeHead(500).end();
    });
  });

  async function handleService(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const url = new URL(request.url ?? "/", servicesUrl);
    requests.push({ method: request.method ?? "", paid: Boolean(request.headers["payment-signature"]) });
    if (url.pathname !== "/v1/translate") return void response.writeHead(404).end();
    if (request.method !== "POST") return void response.writeHead(405, { allow: "POST" }).end();
    const raw = await readBody(request);
    const context: HTTPRequestContext = { adapter: new NodeHttpAdapter(request, url), path: url.pathname, method: "POST" };
    const result = await http.processHTTPRequest(context);
    if (result.type === "payment-error") {
      response.writeHead(result.response.status, { "content-type": "application/json", ...result.response.headers });
      return void response.end(JSON.stringify(result.response.body ?? {}));
    }
    if (result.type === "no-payment-required") throw new Error("the route is not protected");
    let body: { text?: unknown; to?: unknown };
    try {
      body = JSON.parse(raw) as typeof body;
    } catch {
      return void response.writeHead(400, { "content-type": "application/json" }).end('{"error":"body is not JSON"}');
    }
    if (typeof body.text !== "string" || typeof body.to !== "string") {
      return void response.writeHead(400, { "content-type": "application/json" }).end('{"error":"text and to are required"}');
    }
    paidBodies.push(body);
    const answer = JSON.stringify({ translation: `[${body.to}] ${body.text}`, to: body.to });
    const settlement = await http.processSettlement(result.paymentPayload, result.paymentRequirements, result.declaredExtensions, { request: context, responseBody: Buffer.from(answer) });
    if (!settlement.success) {
      response.writeHead(settlement.response.status, { "content-type": "application/json", ...settlement.response.headers });
      return void response.end(JSON.stringify(settlement.response.body ?? {}));
    }
    response.writeHead(200, { "content-type": "application/json", ...settlement.headers });
    response.end(answer);
  }

  // The discovery server: the spec's fields and no others.
  const bazaar = await listen();
  const bazaarUrl = `http://127.0.0.1:${(bazaar.address() as AddressInfo).port}`;
  bazaar.on("request", (request, response) => {
    const url = new URL(request.url ?? "/", bazaarUrl);
    const json = (value: unknown) => response.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(value));
    if (url.pathname === "/discovery/resources") {
      const offset = Number(url.searchParams.get("offset") ?? 0);
      const limit = Number(url.searchParams.get("limit") ?? 20);
      return json({ x402Version: 2, items: [listing].slice(offset, offset + limit), pagination: { limit, offset, total: 1 } });
    }
    if (url.pathname === "/discovery/search") {
      const query = (url.searchParams.get("query") ?? "").toLowerCase();
      const matches = /translat|language|french/.test(query) ? [listing] : [];
      return json({ x402Version: 2, resources: matches, partialResults: false, pagination: { limit: 20, cursor: null } });
    }
    response.writeHead(404).end();
  });

  // The catalogue entry is what a facilitator would record from the service's own 402: its
  // requirements and its bazaar extension as the resource server sends it (method filled in).
  const unpaid = await fetch(translateUrl, { method: "POST", headers: { "content-type": "application/json" }, body: "{}" });
  const header = unpaid.headers.get("payment-required");
  if (unpaid.status !== 402 || !header) throw new Error(`the foreign service answered ${unpaid.status} without PAYMENT-REQUIRED`);
  const required = JSON.parse(Buffer.from(header, "base64").toString("utf8")) as { accepts: unknown[]; extensions?: Record<string, unknown> };
  listing.accepts = required.accepts;
  listing.extensions = required.extensions;
  requests.length = 0;

  return {
    bazaarUrl,
    translateUrl,
    payTo,
    paidBodies,
    requests,
    async stop() {
      await Promise.all([close(services), close(bazaar)]);
    },
  };
}

function listen(): Promise<Server> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => resolve(server));
  });
}

function close(server: Server): Promise<void> {
  return new Promise((resolve) => {
    server.closeAllConnections();
    server.close(() => resolve());
  });
}

async function readBody(request: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request) {
    size += (chunk as Buffer).length;
    if (size > 64 * 1024) throw new Error("body too large");
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks).toString("utf8");
}
