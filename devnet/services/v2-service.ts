import type { ServerResponse } from "node:http";
import { decodePaymentRequiredHeader, encodePaymentRequiredHeader } from "@x402/core/http";
import {
  HTTPFacilitatorClient,
  x402HTTPResourceServer,
  x402ResourceServer,
  type HTTPRequestContext,
  type HTTPResponseInstructions,
  type RouteConfig,
} from "@x402/core/server";
import type { PaymentRequirements } from "@x402/core/types";
import { ExactEvmScheme } from "@x402/evm/exact/server";
import { UptoEvmScheme } from "@x402/evm/upto/server";
import { bazaarResourceServerExtension } from "@x402/extensions/bazaar";
import { formatUnits } from "viem";
import { sendJson } from "../http/json-response";
import { NodeHttpAdapter } from "./node-http-adapter";
import {
  preflight,
  produceAnswer,
  sendFacilitatorUnavailable,
  watchCaller,
  writeInstructions,
  type HandlerEnvironment,
  type PaidServiceHandler,
} from "./paid-request-handler";
import { discoveryExtensionFor, foreignNetworkOption, MAX_TIMEOUT_SECONDS, type PaymentTerms } from "./payment-terms";
import type { DemoService } from "./define-service";
import { meteringQuote } from "./metering";
import { SIGNED_RECEIPTS_DECLARATION, signedReceiptsExtension } from "./signed-receipts";
import { createSiwxAccess, serveSignedIn } from "./siwx-access";
import { OFFER_RECEIPT } from "@x402/extensions/offer-receipt";
import { paymentIdentifierResourceServerExtension } from "@x402/extensions/payment-identifier";
import { paymentIdentifierCacheFor } from "./payment-identifier-cache";

export type V2ServiceOptions = HandlerEnvironment & {
  service: DemoService;
  terms: PaymentTerms;
  facilitatorUrl: string;
  /** How long the service waits for the facilitator before giving up (502). */
  facilitatorTimeoutMs: number;
  /** The service's origin: required by a service that offers sign-in-with-x (its challenge names it). */
  origin?: string;
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
    .register(terms.network, new UptoEvmScheme())
    .registerExtension(bazaarResourceServerExtension)
    // Signed offers in the 402 and a signed receipt with each settlement (signed-receipts.ts).
    .registerExtension(signedReceiptsExtension({ serviceName: service.name, terms, faults: options.faults }));
  const siwx = service.signInWithX ? createSiwxAccess(options.origin ?? "") : undefined;
  if (siwx) resourceServer.registerExtension(siwx.extension);
  // Safe retries: the 402 declares payment-identifier; a repeat gets the first answer (payment-identifier-cache.ts).
  const identifiers = paymentIdentifierCacheFor(options.faults, service.name);
  resourceServer.registerExtension(paymentIdentifierResourceServerExtension);

  const metering = service.metering;
  const paymentOption = {
    // Metered: the payer signs for the ceiling (`price`), the service settles what was used.
    scheme: metering ? "upto" : "exact",
    network: terms.network,
    payTo: terms.payTo,
    // An explicit asset amount: the local chain has no default USDC for x402 to price "$0.01" in.
    price: {
      amount: service.price.toString(),
      asset: terms.token.address,
      extra: { name: terms.token.name, version: terms.token.version, ...(metering ? { metering: meteringQuote(metering) } : {}) },
    },
    maxTimeoutSeconds: MAX_TIMEOUT_SECONDS,
  };
  const price = metering
    ? `up to ${formatUnits(service.price, 6)} USDC (${formatUnits(metering.unitPrice, 6)} USDC per ${metering.unit})`
    : `${formatUnits(service.price, 6)} USDC`;
  const route: RouteConfig = {
    accepts: paymentOption,
    description: service.description,
    mimeType: "application/json",
    serviceName: service.serviceName,
    tags: service.tags,
    extensions: { ...discoveryExtensionFor(service), ...siwx?.declaration, ...SIGNED_RECEIPTS_DECLARATION, ...identifiers.declaration },
    // The requirements travel in the PAYMENT-REQUIRED header; the body is for people with curl.
    unpaidResponseBody: () => ({
      contentType: "application/json",
      body: { error: "payment_required", service: service.name, price, message: `Pay ${price} with x402 v2: see the PAYMENT-REQUIRED header.` },
    }),
    settlementFailedResponseBody: (_context, failure) => ({
      contentType: "application/json",
      body: {
        error: "settlement_failed",
        reason: failure.errorReason,
        message: failure.errorMessage ?? failure.errorReason,
        transaction: failure.transaction || null,
      },
    }),
  };
  const httpServer = new x402HTTPResourceServer(resourceServer, { [`${service.method} ${service.path}`]: route });
  // Fetches /supported and checks the facilitator can settle this network and scheme.
  await httpServer.initialize();
  const local = await resourceServer.buildPaymentRequirementsFromOptions([paymentOption], {});
  // @x402/core builds requirements only for networks its facilitator supports; an option
  // elsewhere is put in front on the wire, where a buyer has to choose between them.
  const foreign = service.offers === "foreign-first" ? [foreignNetworkOption(service, terms.payTo)] : [];
  const accepts = [...foreign, ...local];
  const write = (response: ServerResponse, instructions: HTTPResponseInstructions) =>
    writeInstructions(response, foreign.length > 0 ? offerFirst(instructions, foreign) : instructions);

  return identifiers.guard({
    accepts,
    async handle(request, response) {
      const callerGone = watchCaller(response);
      const adapter = (url: URL) => new NodeHttpAdapter(request, url);
      const hasPayment = Boolean(request.headers["payment-signature"]);
      const accepted = await preflight(service, request, response, hasPayment);
      if (!accepted) return;
      const { url, input } = accepted;
      const context: HTTPRequestContext = { adapter: adapter(url), path: url.pathname, method: service.method };

      let result: Awaited<ReturnType<typeof httpServer.processHTTPRequest>>;
      try {
        result = await httpServer.processHTTPRequest(context);
      } catch {
        return sendFacilitatorUnavailable(response, "verify");
      }
      if (result.type === "payment-error") return write(response, result.response);
      // Only the SIWX hook lets a request through unpaid: this wallet paid for this path before.
      if (result.type === "no-payment-required" && siwx) return serveSignedIn(service, input, response, callerGone, options);
      if (result.type === "no-payment-required") throw new Error(`${service.path} is not protected`);

      const produced = await produceAnswer(service, input, response, callerGone, options);
      if (produced.kind !== "answer") {
        await result.cancellationDispatcher.cancel({ reason: "handler_failed", responseStatus: 500 }).catch(() => undefined);
        return;
      }
      let settlement: Awaited<ReturnType<typeof httpServer.processSettlement>>;
      try {
        settlement = await httpServer.processSettlement(
          result.paymentPayload,
          result.paymentRequirements,
          result.declaredExtensions,
          { request: context, responseBody: Buffer.from(produced.body) },
          // upto: the settlement's amount is what this answer used, at most the signed ceiling.
          produced.settleAmount === undefined ? undefined : { amount: produced.settleAmount.toString() },
        );
      } catch {
        return sendFacilitatorUnavailable(response, "settle");
      }
      if (!settlement.success) return write(response, settlement.response);
      // The failing listing that takes the money: settled on chain, then a 500 and nothing delivered.
      if (service.failure === "fails-after-payment") return sendJson(response, 500, { error: "internal_error", message: "Something went wrong." });
      response.writeHead(200, { "Content-Type": "application/json; charset=utf-8", "Cache-Control": "no-store, private", ...settlement.headers });
      response.end(produced.body);
    },
  });
}

/**
 * The same 402 with the given options first in the `accepts` of its PAYMENT-REQUIRED header.
 * The signed offers keep their signatures (their `acceptIndex` is outside what is signed) and
 * move their `acceptIndex` along, so that each still points at the option it signs.
 */
function offerFirst(instructions: HTTPResponseInstructions, options: Record<string, unknown>[]): HTTPResponseInstructions {
  const name = Object.keys(instructions.headers).find((key) => key.toLowerCase() === "payment-required");
  if (!name) return instructions;
  const required = decodePaymentRequiredHeader(instructions.headers[name] ?? "");
  const widened = { ...required, accepts: [...(options as unknown as PaymentRequirements[]), ...required.accepts] };
  const offerReceipt = required.extensions?.[OFFER_RECEIPT] as { info?: { offers?: { acceptIndex?: number }[] } } | undefined;
  if (offerReceipt?.info?.offers) {
    const offers = offerReceipt.info.offers.map((offer) =>
      offer.acceptIndex === undefined ? offer : { ...offer, acceptIndex: offer.acceptIndex + options.length },
    );
    widened.extensions = { ...required.extensions, [OFFER_RECEIPT]: { ...offerReceipt, info: { ...offerReceipt.info, offers } } };
  }
  return { ...instructions, headers: { ...instructions.headers, [name]: encodePaymentRequiredHeader(widened) } };
}
