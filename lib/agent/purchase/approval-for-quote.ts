import { formatUsdc } from "../../money";
import type { ApprovalRequest } from "../../stream";
import { resourceInfoOf } from "../../stream/extension-echo-bounds";
import { PERMIT2 } from "../../x402/upto-permit2";
import type { Quote } from "./purchase-types";
import type { QuoteTypedData } from "./schemes/payment-scheme";

/** What the user's wallet is asked to sign: the frozen quote, as the browser shows it and sends it back. */
export function approvalRequest(quote: Quote, typedData: QuoteTypedData, permit2Missing = false): ApprovalRequest {
  const { option } = quote;
  const resourceInfo = resourceInfoOf(quote.resource);
  const unitPrice = option.upto?.unitPrice;
  const unit = (option.requirements.extra as { metering?: { unit?: unknown } } | undefined)?.metering?.unit;
  const upto = option.upto
    ? {
        ceiling: formatUsdc(option.amount),
        ...(unitPrice === undefined
          ? {}
          : { metering: { unitPrice: formatUsdc(unitPrice), ...(typeof unit === "string" && unit.length <= 64 ? { unit } : {}) } }),
        ...(permit2Missing ? { permit2Approval: { spender: PERMIT2, token: option.asset, amount: formatUsdc(option.amount) } } : {}),
      }
    : {};
  return {
    method: quote.method,
    resource: quote.url,
    amount: formatUsdc(option.amount),
    asset: option.asset,
    network: option.network,
    payTo: option.payTo,
    expiresAt: Number(quote.validBefore),
    x402Version: option.x402Version,
    scheme: option.upto ? "upto" : "exact",
    requirements: option.requirements,
    typedData,
    payer: quote.payer,
    ...upto,
    ...(quote.body === undefined ? {} : { body: quote.body, contentType: quote.contentType }),
    ...(quote.extensions === undefined ? {} : { extensions: quote.extensions }),
    ...(resourceInfo === undefined ? {} : { resourceInfo }),
  };
}
