/**
 * Stage 8 over HTTP, the "send with payment" half of the HTTP transport: the quoted request
 * again, with the payload in `PAYMENT-SIGNATURE` (v1: `X-PAYMENT`), following no redirect; its
 * answer handed over with the settlement decoded from `PAYMENT-RESPONSE` (v1:
 * `X-PAYMENT-RESPONSE`) and the refusal read from the answer as x402 over HTTP carries it.
 */
import { paymentHeaderOf } from "../../x402/payment-payload";
import { readResponseRefusal } from "../../x402/payment-refusal";
import { readPaymentRequired } from "../../x402/payment-requirements";
import { decodeSettlementHeader } from "../../x402/read-settlement";
import { sendWithProof } from "./http-call";
import type { OutboundFetch, SendWithPayment } from "./purchase-types";

export function sendOverHttp(fetch: OutboundFetch): SendWithPayment {
  return async (call) => {
    const response = await sendWithProof(fetch, call, paymentHeaderOf(call.payment), call.signal);
    return {
      delivered: response.ok,
      content: response,
      settlement: decodeSettlementHeader(response.headers),
      refusal: () => readResponseRefusal(response),
      ...(response.status === 402 ? { refused: true as const, paymentRequired: readPaymentRequired(response.headers, undefined) } : {}),
      description: `${call.service} answered HTTP ${response.status} to the payment.`,
    };
  };
}
