import { concat, keccak256, stringToHex } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { formatUsdc } from "../../lib/money";
import type { DiscoveryItem } from "../facilitator/discovery-catalog";
import type { DevnetFaults } from "../faults";
import type { PaidRequestOutcomes } from "./paid-outcomes";
import { sendJson, sendProblem } from "../http/json-response";
import { ASKS_TIMES_LISTED, exampleInput, type DemoService } from "./define-service";
import { meteringQuote } from "./metering";
import { matchRoute, type PaidServiceHandler } from "./paid-request-handler";
import { discoveryExtensionFor, FOREIGN_NETWORK, type PaymentTerms } from "./payment-terms";
import { findRefusingPort, startServiceHost, type ServiceHost } from "./service-host";
import { createUnpayableServiceHandler } from "./unpayable-service";
import { createV1ServiceHandler } from "./v1-service";
import { createV2ServiceHandler } from "./v2-service";

export type StartServicesOptions = {
  terms: PaymentTerms;
  facilitatorUrl: string;
  facilitatorTimeoutMs: number;
  slowDelayMs: number;
  faults: DevnetFaults;
  outcomes: PaidRequestOutcomes;
  /** Called for each server as soon as it listens, so that a failed start still stops it. */
  onStarted(host: ServiceHost): void;
};

export type RunningService = { service: DemoService; url: string; handler: PaidServiceHandler; host: ServiceHost | undefined };

/**
 * Starts the services: one server per host group (most services have their own, like separate
 * companies; the guide catalogue shares one, like one publisher's API), each service's
 * handler for its protocol and offers, and the fault switches that take a host offline.
 */
export async function startServices(services: readonly DemoService[], options: StartServicesOptions): Promise<RunningService[]> {
  const groups = [...new Set(services.filter((service) => !service.alwaysOffline).map((service) => service.hostGroup))];
  const hostsByGroup = new Map(
    await Promise.all(
      groups.map(async (group) => {
        const host = await startServiceHost();
        options.onStarted(host);
        return [group, host] as const;
      }),
    ),
  );
  const running = await Promise.all(services.map((service) => startService(service, hostsByGroup.get(service.hostGroup), options)));
  for (const [group, host] of hostsByGroup) host.attach(routeByPath(running.filter((entry) => entry.service.hostGroup === group)));
  // A fault switch takes a service's whole host offline (for a shared host, its neighbours too).
  const hosts = new Map(running.flatMap((entry) => (entry.host ? [[entry.service.name, entry.host] as const] : [])));
  options.faults.attachServices(hosts.keys(), async (name, online) => {
    await hosts.get(name)?.setOnline(online);
  });
  return running;
}

async function startService(service: DemoService, host: ServiceHost | undefined, options: StartServicesOptions): Promise<RunningService> {
  // The offline service gets a URL where nothing listens, but its terms are real: it is listed.
  const origin = host?.origin ?? `http://127.0.0.1:${await findRefusingPort()}`;
  // A route template stays in the listed URL, as the bazaar spec lists dynamic routes.
  const url = `${origin}${service.path}`;
  const terms = service.payee === "own" ? ownPayeeTerms(options.terms, service.name) : options.terms;
  const shared = {
    faults: options.faults,
    outcomes: options.outcomes,
    slowDelayMs: options.slowDelayMs,
    service,
    terms,
    facilitatorUrl: options.facilitatorUrl,
    facilitatorTimeoutMs: options.facilitatorTimeoutMs,
    origin,
  };
  const handler = await handlerFor(service, url, terms, shared);
  return { service, url, handler, host };
}

/** The service's handler for its protocol, its offers and, for a failing listing, its failure. */
async function handlerFor(
  service: DemoService,
  url: string,
  terms: PaymentTerms,
  shared: Parameters<typeof createV2ServiceHandler>[0],
): Promise<PaidServiceHandler> {
  if (service.offers === "foreign-only") return createUnpayableServiceHandler(service, url, terms);
  if (service.x402Version === 1) return createV1ServiceHandler({ ...shared, resourceUrl: url });
  switch (service.failure) {
    case "asks-more-than-listed":
      return listedBelowItsPrice(await createV2ServiceHandler({ ...shared, service: { ...service, price: service.price * ASKS_TIMES_LISTED } }), service.price);
    case "asks-another-network":
      // Listed with the local terms a v2 service would offer; its 402 names only another network.
      return { ...createUnpayableServiceHandler(service, url, terms), accepts: (await createV2ServiceHandler(shared)).accepts };
    case "error-before-payment":
      return failingBeforePayment(await createV2ServiceHandler(shared));
    default:
      return createV2ServiceHandler(shared);
  }
}

/**
 * A failing listing's own payee: a key derived from the merchant's and the service's name, so
 * that its offers and receipts are signed by the account it names, and what reached it shows on
 * chain apart from the merchant's takings.
 */
function ownPayeeTerms(terms: PaymentTerms, name: string): PaymentTerms {
  if (!terms.payeeKey) throw new Error(`${name}: a payee of its own is derived from the merchant's key`);
  const payeeKey = keccak256(concat([terms.payeeKey, stringToHex(`x402 failing payee ${name}`)]));
  return { ...terms, payTo: privateKeyToAccount(payeeKey).address, payeeKey };
}

/** Serves (and settles) at its real price, but is listed at `listed`: its 402 asks more than its listing. */
function listedBelowItsPrice(handler: PaidServiceHandler, listed: bigint): PaidServiceHandler {
  return { ...handler, accepts: handler.accepts.map((option) => ({ ...option, amount: listed.toString() })) };
}

/** Listed with real terms, but every request, paid or not, gets a 500 before any 402. */
function failingBeforePayment(handler: PaidServiceHandler): PaidServiceHandler {
  return {
    accepts: handler.accepts,
    async handle(_request, response) {
      sendJson(response, 500, { error: "internal_error", message: "Something went wrong." });
    },
  };
}

/** One host's request handler: the service whose route the path matches, else 404. */
function routeByPath(entries: readonly RunningService[]): Pick<PaidServiceHandler, "handle"> {
  const [only] = entries;
  // A host of one service lets that service answer everything, wrong paths included.
  if (entries.length === 1 && only) return only.handler;
  return {
    async handle(request, response) {
      const path = new URL(request.url ?? "/", "http://127.0.0.1").pathname;
      const entry = entries.find((candidate) => matchRoute(candidate.service.path, path));
      if (entry) return entry.handler.handle(request, response);
      sendProblem(response, 404, "Not found", "No service answers at this path.");
    },
  };
}

/** A service's catalogue entry, as a facilitator would record it from the service's own 402. */
export function discoveryItem({ service, url, handler }: RunningService, lastUpdated: string): DiscoveryItem {
  return {
    resource: url,
    type: "http",
    x402Version: service.x402Version,
    accepts: handler.accepts,
    lastUpdated,
    description: service.description,
    mimeType: "application/json",
    serviceName: service.serviceName,
    tags: service.tags,
    // A v1 service describes its call in its requirement's `outputSchema`; it has no extensions.
    ...(service.x402Version === 2 ? { extensions: discoveryExtensionFor(service) } : {}),
    metadata: { name: service.name, path: service.path, price: formatUsdc(service.price), amount: service.price.toString(), offline: service.alwaysOffline },
  };
}

/** A service as the coordinates file describes it, for tests, scripts and `curl`. */
export function coordinatesEntry({ service, url, handler }: RunningService, networks: { v2: string; v1: string }) {
  const input = exampleInput(service);
  return {
    name: service.name,
    url,
    price: formatUsdc(service.price),
    x402Version: service.x402Version,
    path: service.path,
    amount: service.price.toString(),
    description: service.description,
    network: service.offers === "foreign-only" ? FOREIGN_NETWORK : service.x402Version === 1 ? networks.v1 : networks.v2,
    method: service.method,
    queryParams: service.inputIn === "query" ? Object.fromEntries(Object.entries(input).map(([key, value]) => [key, String(value)])) : {},
    example: exampleCallOf(service, url),
    ...(service.hostGroup !== service.name ? { group: service.hostGroup } : {}),
    offline: service.alwaysOffline,
    ...(service.failure ? { failure: service.failure } : {}),
    ...(service.payee === "own" ? { payTo: handler.accepts.map((option) => String(option.payTo))[0] } : {}),
    scheme: service.metering ? "upto" : "exact",
    ...(service.metering ? { metering: meteringQuote(service.metering) } : {}),
  };
}

/** The service called with its own example inputs: path filled in, query set, JSON body given. */
function exampleCallOf(service: DemoService, resource: string): { url: string; body?: Record<string, unknown> } {
  const input = exampleInput(service);
  const url = new URL(resource);
  if (service.inputIn === "path") url.pathname = service.path.replace(/:(\w+)/g, (_match, name: string) => encodeURIComponent(String(input[name] ?? "")));
  if (service.inputIn === "query") for (const [key, value] of Object.entries(input)) url.searchParams.set(key, String(value));
  return service.inputIn === "json-body" ? { url: url.toString(), body: input } : { url: url.toString() };
}
