import { encodePaymentRequiredHeader } from "@x402/core/http";
import type { PaymentRequired, PaymentRequirements } from "@x402/core/types";
import { formatUnits } from "viem";
import { sendJson } from "../http/json-response";
import type { DemoService } from "./define-service";
import { preflight, type PaidServiceHandler } from "./paid-request-handler";
import { FOREIGN_NETWORK, foreignNetworkOption, type PaymentTerms } from "./payment-terms";

/**
 * A service that takes payment only on another network: every request, paid or not, gets a
 * v2 402 whose `accepts` names that network alone. Nothing on the local chain can pay it, so
 * it shows how a buyer treats a listing it cannot pay. No facilitator is involved: a payment
 * for a network the service does not take is refused as unusable, before any verification.
 */
export function createUnpayableServiceHandler(service: DemoService, resourceUrl: string, terms: PaymentTerms): PaidServiceHandler {
  const accepts = [foreignNetworkOption(service, terms.payTo)];
  const price = `${formatUnits(service.price, 6)} USDC`;
  return {
    accepts,
    async handle(request, response) {
      const paid = Boolean(request.headers["payment-signature"]);
      const accepted = await preflight(service, request, response, paid);
      if (!accepted) return;
      const required: PaymentRequired = {
        x402Version: 2,
        error: paid ? `this service takes payment only on ${FOREIGN_NETWORK}` : "Payment required",
        resource: { url: resourceUrl, description: service.description, mimeType: "application/json" },
        accepts: accepts as unknown as PaymentRequirements[],
      };
      sendJson(
        response,
        402,
        { error: "payment_required", service: service.name, price, message: `Pay ${price} on ${FOREIGN_NETWORK}: see the PAYMENT-REQUIRED header.` },
        { "PAYMENT-REQUIRED": encodePaymentRequiredHeader(required) },
      );
    },
  };
}
