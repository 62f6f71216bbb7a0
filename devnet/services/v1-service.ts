import type { ServerResponse } from "node:http";
import { HTTPFacilitatorClient } from "@x402/core/server";
import type { PaymentPayload, PaymentRequirements, SettleResponse, VerifyResponse } from "@x402/core/types";
import { z } from "zod";
import { sendJson } from "../http/json-response";
import { preflight, produceAnswer, sendFacilitatorUnavailable, watchCaller, type HandlerEnvironment, type PaidServiceHandler } from "./paid-request-handler";
import { v1RequirementsFor, type PaymentTerms } from "./payment-terms";
import type { DemoService } from "./define-service";

export type V1ServiceOptions = HandlerEnvironment & {
  service: DemoService;
  terms: PaymentTerms;
  /** The URL the service is reached at: x402 v1 names it in each requirement's `resource`. */
  resourceUrl: string;
  facilitatorUrl: string;
  facilitatorTimeoutMs: number;
};

const Hex = (bytes: number) => z.string().regex(new RegExp(`^0x[0-9a-fA-F]{${bytes * 2}}$`));
const Integer = z.string().regex(/^\d+$/);

/** An x402 v1 exact EVM payment, as the X-PAYMENT header carries it (base64 JSON). */
const PaymentV1 = z.object({
  x402Version: z.literal(1),
  scheme: z.string(),
  network: z.string(),
  payload: z.object({
    signature: z.string().regex(/^0x[0-9a-fA-F]+$/),
    authorization: z.object({ from: Hex(20), to: Hex(20), value: Integer, validAfter: Integer, validBefore: Integer, nonce: Hex(32) }),
  }),
});

/**
 * A demo service that speaks only x402 v1, the legacy protocol: the requirements are in the
 * 402 body (`x402Version: 1`, `accepts[].maxAmountRequired`), the payment arrives in
 * `X-PAYMENT`, and the receipt leaves in `X-PAYMENT-RESPONSE`. @x402/core's HTTP resource server
 * only answers in v2, so the v1 exchange is done here by hand, still verifying and settling
 * through the facilitator with @x402/core's HTTP facilitator client. Same order as v2: verify,
 * produce the answer, settle, respond.
 */
export function createV1ServiceHandler(options: V1ServiceOptions): PaidServiceHandler {
  const { service } = options;
  const requirements = v1RequirementsFor(service, options.resourceUrl, options.terms);
  const facilitator = new HTTPFacilitatorClient({ url: options.facilitatorUrl, timeoutMs: options.facilitatorTimeoutMs });
  // The facilitator client is typed for v2; it sends whatever payload it is given, tagged with its x402Version.
  const asV2Requirements = requirements as unknown as PaymentRequirements;

  const paymentRequired = (response: ServerResponse, error: string) => sendJson(response, 402, { x402Version: 1, error, accepts: [requirements] });

  return {
    accepts: [requirements],
    async handle(request, response) {
      const callerGone = watchCaller(response);
      const header = request.headers["x-payment"];
      const paymentHeader = Array.isArray(header) ? header[0] : header;
      const accepted = await preflight(service, request, response, Boolean(paymentHeader));
      if (!accepted) return;
      if (!paymentHeader) return paymentRequired(response, "X-PAYMENT header is required");

      const payment = decodePayment(paymentHeader);
      if (!payment) return paymentRequired(response, "invalid_payment: X-PAYMENT is not a valid x402 v1 payment");
      if (payment.scheme !== requirements.scheme || payment.network !== requirements.network) {
        return paymentRequired(response, `invalid_payment: this service accepts ${requirements.scheme} on ${requirements.network}`);
      }
      const paymentPayload = payment as unknown as PaymentPayload;

      let verification: VerifyResponse;
      try {
        verification = await facilitator.verify(paymentPayload, asV2Requirements);
      } catch {
        return sendFacilitatorUnavailable(response, "verify");
      }
      if (!verification.isValid) return paymentRequired(response, verification.invalidReason ?? "invalid_payment");

      const produced = await produceAnswer(service, accepted.input, response, callerGone, options);
      if (produced.kind !== "answer") return;

      let settlement: SettleResponse;
      try {
        settlement = await facilitator.settle(paymentPayload, asV2Requirements);
      } catch {
        return sendFacilitatorUnavailable(response, "settle");
      }
      const receipt = Buffer.from(JSON.stringify(settlement)).toString("base64");
      if (!settlement.success) {
        return sendJson(
          response,
          402,
          { x402Version: 1, error: settlement.errorReason ?? "settlement_failed", accepts: [requirements] },
          { "X-PAYMENT-RESPONSE": receipt },
        );
      }
      response.writeHead(200, {
        "Content-Type": "application/json; charset=utf-8",
        "Cache-Control": "no-store, private",
        "X-PAYMENT-RESPONSE": receipt,
      });
      response.end(produced.body);
    },
  };
}

function decodePayment(header: string): z.infer<typeof PaymentV1> | undefined {
  try {
    const parsed = PaymentV1.safeParse(JSON.parse(Buffer.from(header, "base64").toString("utf8")));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}
