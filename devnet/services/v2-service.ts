import { HTTPFacilitatorClient, x402HTTPResourceServer, x402ResourceServer, type HTTPRequestContext, type RouteConfig } from "@x402/core/server";
import { ExactEvmScheme } from "@x402/evm/exact/server";
import { bazaarResourceServerExtension } from "@x402/extensions/bazaar";
import { formatUnits } from "viem";
import { NodeHttpAdapter } from "./node-http-adapter";
import { preflight, produceAnswer, sendFacilitatorUnavailable, watchCaller, writeInstructions, type HandlerEnvironment, type PaidServiceHandler } from "./paid-request-handler";
import { discoveryExtensionFor, MAX_TIMEOUT_SECONDS, type PaymentTerms } from "./payment-terms";
import type { DemoService } from "./service-catalog";

export type V2ServiceOptions = HandlerEnvironment & {
  service: DemoService;
  terms: PaymentTerms;
  facilitatorUrl: string;
  /** How long the service waits for the facilitator before giving up (502). */
  facilitatorTimeoutMs: number;
};

/**
 * A demo service speaking x402 v2 through @x402/core's resource server: 402 with a
 * PAYMENT-REQUIRED header, PAYMENT-SIGNATURE in, verify and settle through the facilitator
 * over HTTP, PAYMENT-RESPONSE out. The order is verify, produce the answer, settle, respond:
 * a payment is settled only when its answer is ready to be delivered.
 */
export async function createV2ServiceHandler(options: V2ServiceOptions): Promise<PaidServiceHandler> {
  const { service, terms } = options;
  const resourceServer = new x402ResourceServer(new HTTPFacilitatorClient({ url: options.facilitatorUrl, timeoutMs: options.facilitatorTimeoutMs }))
    .register(terms.network, new ExactEvmScheme())
    .registerExtension(bazaarResourceServerExtension);

  const paymentOption = {
    scheme: "exact",
    network: terms.network,
    payTo: terms.payTo,
    // An explicit asset amount: the local chain has no default USDC for x402 to price "$0.01" in.
    price: { amount: service.price.toString(), asset: terms.token.address, extra: { name: terms.token.name, version: terms.token.version } },
    maxTimeoutSeconds: MAX_TIMEOUT_SECONDS,
  };
  const price = `${formatUnits(service.price, 6)} USDC`;
  const route: RouteConfig = {
    accepts: paymentOption,
    description: service.description,
    mimeType: "application/json",
    serviceName: service.serviceName,
    tags: service.tags,
    extensions: discoveryExtensionFor(service),
    // The requirements travel in the PAYMENT-REQUIRED header; the body is for people with curl.
    unpaidResponseBody: () => ({
      contentType: "application/json",
      body: { error: "payment_required", service: service.name, price, message: `Pay ${price} with x402 v2: see the PAYMENT-REQUIRED header.` },
    }),
    settlementFailedResponseBody: (_context, failure) => ({
      contentType: "application/json",
      body: { error: "settlement_failed", reason: failure.errorReason, message: failure.errorMessage ?? failure.errorReason, transaction: failure.transaction || null },
    }),
  };
  const httpServer = new x402HTTPResourceServer(resourceServer, { [`GET ${service.path}`]: route });
  // Fetches /supported and checks the facilitator can settle this network and scheme.
  await httpServer.initialize();
  const accepts = await resourceServer.buildPaymentRequirementsFromOptions([paymentOption], {});

  return {
    accepts,
    async handle(request, response) {
      const callerGone = watchCaller(response);
      const adapter = (url: URL) => new NodeHttpAdapter(request, url);
      const hasPayment = Boolean(request.headers["payment-signature"]);
      const url = preflight(service, request, response, hasPayment);
      if (!url) return;
      const context: HTTPRequestContext = { adapter: adapter(url), path: url.pathname, method: "GET" };

      let result: Awaited<ReturnType<typeof httpServer.processHTTPRequest>>;
      try {
        result = await httpServer.processHTTPRequest(context);
      } catch {
        return sendFacilitatorUnavailable(response, "verify");
      }
      if (result.type === "payment-error") return writeInstructions(response, result.response);
      if (result.type === "no-payment-required") throw new Error(`${service.path} is not protected`);

      const produced = await produceAnswer(service, url, response, callerGone, options);
      if (produced.kind !== "answer") {
        await result.cancellationDispatcher.cancel({ reason: "handler_failed", responseStatus: 500 }).catch(() => undefined);
        return;
      }
      let settlement: Awaited<ReturnType<typeof httpServer.processSettlement>>;
      try {
        settlement = await httpServer.processSettlement(result.paymentPayload, result.paymentRequirements, result.declaredExtensions, {
          request: context,
          responseBody: Buffer.from(produced.body),
        });
      } catch {
        return sendFacilitatorUnavailable(response, "settle");
      }
      if (!settlement.success) return writeInstructions(response, settlement.response);
      response.writeHead(200, { "Content-Type": "application/json; charset=utf-8", "Cache-Control": "no-store, private", ...settlement.headers });
      response.end(produced.body);
    },
  };
}
