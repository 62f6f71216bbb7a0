import { formatUsdc } from "../../money";
import type { ApprovalRequest } from "../../stream";
import { resourceInfoOf } from "../../stream/extension-echo-bounds";
import type { Quote } from "./purchase-types";
import type { QuoteTypedData } from "./schemes/payment-scheme";
import { approvalSchemeName, schemeOf } from "./schemes/payment-schemes";

/**
 * What the user's wallet is asked to sign: the frozen quote, as the browser shows it and sends it
 * back. The scheme adds its own fields (a metered ceiling, its metering, an approve to send first).
 */
export function approvalRequest(quote: Quote, typedData: QuoteTypedData, permit2Missing = false): ApprovalRequest {
  const { option } = quote;
  const scheme = schemeOf(option);
  const resourceInfo = resourceInfoOf(quote.resource);
  return {
    method: quote.method,
    resource: quote.url,
    amount: formatUsdc(option.amount),
    asset: option.asset,
    network: option.network,
    payTo: option.payTo,
    expiresAt: Number(quote.validBefore),
    x402Version: option.x402Version,
    scheme: approvalSchemeName(scheme),
    requirements: option.requirements,
    typedData,
    payer: quote.payer,
    ...scheme.approvalFields(option, permit2Missing),
    ...(quote.body === undefined ? {} : { body: quote.body, contentType: quote.contentType }),
    ...(quote.extensions === undefined ? {} : { extensions: quote.extensions }),
    ...(resourceInfo === undefined ? {} : { resourceInfo }),
  };
}
