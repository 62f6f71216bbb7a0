/**
 * Paid services behind the official server middleware only: `@x402/express`'s
 * `paymentMiddleware` with `@x402/core`'s `x402ResourceServer`, an `HTTPFacilitatorClient` to
 * the official facilitator, `@x402/evm`'s exact server scheme (its money parser pricing in the
 * world's USDC) and the bazaar resource-server extension, each route declared with
 * `declareDiscoveryExtension`. Three services on one loopback origin:
 * - `weather`: GET with a query parameter (`/weather?city=`), 0.01 USDC;
 * - `translate`: POST with a JSON body (`{ text, target }`), 0.02 USDC;
 * - `tides`: GET with a query parameter (`/tides?port=`), 0.03 USDC.
 * Every answer carries a fresh id, kept with what was asked, so a test can tell that what the
 * agent delivered is what the service served; every request is recorded, paid or not.
 */
import { randomUUID } from "node:crypto";
import { createServer } from "node:http";
import { HTTPFacilitatorClient } from "@x402/core/server";
import type { Network } from "@x402/core/types";
import { convertToTokenAmount } from "@x402/core/utils";
import { ExactEvmScheme } from "@x402/evm/exact/server";
import { paymentMiddleware, x402ResourceServer } from "@x402/express";
import { bazaarResourceServerExtension, declareDiscoveryExtension } from "@x402/extensions/bazaar";
import express, { type Response } from "express";
import { z } from "zod";
import { closeServer, listen, LOOPBACK_HOST } from "../../devnet/http/listen";

export type OfficialToken = { address: `0x${string}`; name: string; version: string; decimals: number };

export type OfficialServicesOptions = {
  network: Network;
  token: OfficialToken;
  payTo: `0x${string}`;
  facilitatorUrl: string;
};

export type OfficialServiceName = "weather" | "translate" | "tides";

export type OfficialService = {
  name: OfficialServiceName;
  method: "GET" | "POST";
  /** The resource URL, without a query. */
  url: string;
  /** Base units of the world's USDC. */
  amount: bigint;
};

/** One answer a service gave after it was paid. */
export type ServedAnswer = { service: OfficialServiceName; id: string; data: Record<string, unknown> };

/** One request as it reached the origin, before the payment middleware. */
export type SeenRequest = { method: string; path: string; paid: boolean };

export type OfficialServices = {
  origin: string;
  /** `127.0.0.1:port`, for an outbound allowlist. */
  host: string;
  weather: OfficialService;
  translate: OfficialService;
  tides: OfficialService;
  served: ServedAnswer[];
  requests: SeenRequest[];
  stop(): Promise<void>;
};

/** Decimal USDC prices, as a seller writes them in a route's `price`. */
const PRICES: Record<OfficialServiceName, string> = { weather: "$0.01", translate: "$0.02", tides: "$0.03" };

const WeatherQuery = z.object({ city: z.string().trim().min(1).max(64) });
const TranslateBody = z.object({ text: z.string().min(1).max(500), target: z.string().regex(/^[a-z]{2}$/) });
const TidesQuery = z.object({ port: z.string().trim().min(1).max(64) });

export async function startOfficialServices(options: OfficialServicesOptions): Promise<OfficialServices> {
  const served: ServedAnswer[] = [];
  const requests: SeenRequest[] = [];

  // The exact scheme knows USDC on public chains only; on this chain the seller says which token
  // a dollar price means, the way the package is extended for any other chain.
  const scheme = new ExactEvmScheme().registerMoneyParser(async (amount, network) =>
    network === options.network
      ? {
          amount: convertToTokenAmount(String(amount), options.token.decimals),
          asset: options.token.address,
          extra: { name: options.token.name, version: options.token.version },
        }
      : null,
  );
  const resourceServer = new x402ResourceServer(new HTTPFacilitatorClient({ url: options.facilitatorUrl }))
    .register(options.network, scheme)
    .registerExtension(bazaarResourceServerExtension);
  const accepts = (service: OfficialServiceName) => ({ scheme: "exact", price: PRICES[service], network: options.network, payTo: options.payTo });

  const app = express();
  app.use((request, _response, next) => {
    requests.push({ method: request.method, path: request.path, paid: Boolean(request.header("payment-signature") ?? request.header("x-payment")) });
    next();
  });
  // Before the middleware: it reads the parsed body of a POST.
  app.use(express.json({ limit: "16kb" }));
  app.use(
    paymentMiddleware(
      {
        "GET /weather": {
          accepts: accepts("weather"),
          description: "Current weather for a city: temperature and conditions",
          mimeType: "application/json",
          serviceName: "Official Weather",
          tags: ["weather", "forecast"],
          extensions: declareDiscoveryExtension({
            input: { city: "Lisbon" },
            inputSchema: { properties: { city: { type: "string", description: "City name" } }, required: ["city"] },
            output: { example: { city: "Lisbon", temperatureC: 21, conditions: "clear", observationId: "obs-…" } },
          }),
        },
        "POST /translate": {
          accepts: accepts("translate"),
          description: "Translate a text into another language",
          mimeType: "application/json",
          serviceName: "Official Translate",
          tags: ["translate", "language"],
          extensions: declareDiscoveryExtension({
            bodyType: "json",
            input: { text: "Good morning", target: "fr" },
            inputSchema: {
              properties: {
                text: { type: "string", description: "The text to translate" },
                target: { type: "string", description: "ISO 639-1 language code" },
              },
              required: ["text", "target"],
            },
            output: { example: { text: "Good morning", target: "fr", translation: "Bonjour", translationId: "tr-…" } },
          }),
        },
        "GET /tides": {
          accepts: accepts("tides"),
          description: "High and low water times for a harbour",
          mimeType: "application/json",
          serviceName: "Official Tides",
          tags: ["tides", "harbour"],
          extensions: declareDiscoveryExtension({
            input: { port: "Brest" },
            inputSchema: { properties: { port: { type: "string", description: "Harbour name" } }, required: ["port"] },
            output: { example: { port: "Brest", highWater: "06:12", lowWater: "12:31", readingId: "tide-…" } },
          }),
        },
      },
      resourceServer,
    ),
  );

  const answer = (response: Response, service: OfficialServiceName, data: Record<string, unknown>) => {
    served.push({ service, id: String(data.observationId ?? data.translationId ?? data.readingId), data });
    response.json(data);
  };
  app.get("/weather", (request, response) => {
    const query = WeatherQuery.safeParse(request.query);
    if (!query.success) return void response.status(400).json({ error: "city is required" });
    answer(response, "weather", { city: query.data.city, temperatureC: 17, conditions: "light rain", observationId: `obs-${randomUUID()}` });
  });
  app.post("/translate", (request, response) => {
    const body = TranslateBody.safeParse(request.body);
    if (!body.success) return void response.status(400).json({ error: "expected { text, target }" });
    answer(response, "translate", { ...body.data, translation: `[${body.data.target}] ${body.data.text}`, translationId: `tr-${randomUUID()}` });
  });
  app.get("/tides", (request, response) => {
    const query = TidesQuery.safeParse(request.query);
    if (!query.success) return void response.status(400).json({ error: "port is required" });
    answer(response, "tides", { port: query.data.port, highWater: "06:12", lowWater: "12:31", readingId: `tide-${randomUUID()}` });
  });

  const server = createServer(app);
  const port = await listen(server);
  const origin = `http://${LOOPBACK_HOST}:${port}`;
  const service = (name: OfficialServiceName, method: "GET" | "POST"): OfficialService => ({
    name,
    method,
    url: `${origin}/${name}`,
    amount: BigInt(convertToTokenAmount(PRICES[name].slice(1), options.token.decimals)),
  });
  return {
    origin,
    host: `${LOOPBACK_HOST}:${port}`,
    weather: service("weather", "GET"),
    translate: service("translate", "POST"),
    tides: service("tides", "GET"),
    served,
    requests,
    stop: () => closeServer(server),
  };
}
