/**
 * Reads a service's 402 answer (x402 v1 body or v2 `PAYMENT-REQUIRED` header) and picks the
 * option this deployment can pay: of a scheme the payer can sign, on our network, in our USDC.
 * Each option is read by the reader registered under its scheme's name (schemes/offer-readers.ts):
 * nothing here knows a scheme's terms. The service's words are data: nothing here trusts a field
 * it has not validated.
 */
import { decodePaymentRequiredHeader } from "@x402/core/http";
import { z } from "zod";
import { withinJsonLimits } from "../json-limits";
import { offerReaderFor } from "./schemes/offer-readers";
import { PAYMENT_FLOWS, type OfferReader, type PayableRequirement, type PaymentFlow, type SchemeName } from "./schemes/payable-option";
import { serviceToken } from "./service-text";

const PaymentRequiredV2 = z.looseObject({
  x402Version: z.literal(2),
  resource: z.looseObject({ url: z.string() }).optional(),
  accepts: z.array(z.record(z.string(), z.unknown())).max(32),
  error: z.string().optional(),
});
const PaymentRequiredV1 = z.looseObject({
  x402Version: z.literal(1),
  accepts: z.array(z.record(z.string(), z.unknown())).max(32),
  error: z.string().optional(),
});

export type PaymentRequired = z.infer<typeof PaymentRequiredV2> | z.infer<typeof PaymentRequiredV1>;

/** What the payer side needs to know about its own network to choose an option. */
export type PayableNetwork = {
  /** Network names that mean our chain: its CAIP-2 id and any v1 name. */
  networkNames: readonly string[];
  usdc: `0x${string}`;
};

export type { PayableRequirement, SchemeName } from "./schemes/payable-option";

export type SelectionOptions = {
  /** The schemes the payer can sign; `exact` alone unless named. */
  schemes?: readonly SchemeName[];
  /**
   * Whether an amount is within the payer's limits. With both schemes offered, `exact` is taken
   * when its price fits, else `upto` when its ceiling fits (docs/decisions.md, "Metered
   * payments: upto").
   */
  fits?: (amount: bigint) => boolean;
};

/**
 * Parses a 402 response's payment requirements (v2 header first, then a v1 JSON body).
 * Returns undefined when the answer is not a readable x402 402.
 */
export function readPaymentRequired(headers: Headers, body: unknown): PaymentRequired | undefined {
  const header = headers.get("PAYMENT-REQUIRED");
  if (header) {
    try {
      const parsed = PaymentRequiredV2.safeParse(decodePaymentRequiredHeader(header));
      if (parsed.success) return parsed.data;
    } catch {
      return undefined;
    }
  }
  return parsePaymentRequired(body);
}

/** A payment request handed over as it is (an MCP tool's `PaymentRequired`, a 402's JSON body), read by the same schemas. */
export function parsePaymentRequired(value: unknown): PaymentRequired | undefined {
  const v2 = PaymentRequiredV2.safeParse(value);
  if (v2.success) return v2.data;
  const v1 = PaymentRequiredV1.safeParse(value);
  return v1.success ? v1.data : undefined;
}

export type SelectionResult = { ok: true; option: PayableRequirement } | { ok: false; reason: string };

/**
 * Picks the option we pay: on our network, in our USDC, of a scheme the payer can sign; the
 * cheapest of a scheme. Between schemes: a known price (`exact`) when it fits the limits, else
 * a metered ceiling (`upto`) when it fits, and the metered one as well when its ceiling is
 * below the known price (its worst case is then cheaper than the certain price). Nothing
 * fitting: the cheapest priced (else metered) option, for the limit check to refuse by name.
 */
export function selectPayableRequirement(paymentRequired: PaymentRequired, network: PayableNetwork, selection: SelectionOptions = {}): SelectionResult {
  const schemes = selection.schemes ?? ["exact"];
  let options: { option: PayableRequirement; reader: OfferReader }[] = [];
  const unpaidFlows = new Set<string>();
  for (const raw of paymentRequired.accepts) {
    const reader = offerReaderFor(raw.scheme);
    if (!reader || !schemes.includes(reader.name)) continue;
    // The object is signed over (canonical JSON in the nonce) and echoed back: bound it first.
    const read = withinJsonLimits(raw) ? reader.read(paymentRequired.x402Version, raw) : undefined;
    if (!read) continue;
    if (!network.networkNames.includes(read.network)) continue;
    if (read.asset.toLowerCase() !== network.usdc.toLowerCase()) continue;
    // The offer read whole: its flow decides when the money moves, and only a flow this
    // scheme's paying half implements is paid (an unknown one is dropped, as the SDK does).
    const flow = flowOf(raw);
    if (!flow || !reader.flows.includes(flow)) {
      unpaidFlows.add(serviceToken(flow ?? String((raw.extra as Record<string, unknown>).paymentFlow)));
      continue;
    }
    options.push({ option: flow === "upfront" ? { ...read, upfront: true } : read, reader });
  }
  // Settling after the work is the buyer's better bargain: preferred wherever it is offered, as the official client does.
  if (options.some((candidate) => !candidate.option.upfront)) options = options.filter((candidate) => !candidate.option.upfront);
  if (options.length === 0) {
    if (unpaidFlows.size > 0) {
      return { ok: false, reason: `the service asks for a payment flow this agent does not implement (${[...unpaidFlows].slice(0, 3).join(", ")})` };
    }
    // The service's own words, reduced to protocol tokens: they reach the model and the page.
    const offered = paymentRequired.accepts
      .slice(0, 5)
      .map((raw) => `${serviceToken(raw.scheme)} on ${serviceToken(raw.network)}`)
      .join(", ");
    const more = paymentRequired.accepts.length > 5 ? ` and ${paymentRequired.accepts.length - 5} more` : "";
    return { ok: false, reason: `the service accepts no payment this deployment can make (offered: ${offered || "nothing"}${more})` };
  }
  options.sort((left, right) => (left.option.amount < right.option.amount ? -1 : left.option.amount > right.option.amount ? 1 : 0));
  // The cheapest option at a known price, and the cheapest metered one (a ceiling).
  const priced = options.find((candidate) => !candidate.reader.metered)?.option;
  const metered = options.find((candidate) => candidate.reader.metered)?.option;
  const fits = selection.fits ?? (() => true);
  if (priced && metered) {
    if (fits(priced.amount) && priced.amount <= metered.amount) return { ok: true, option: priced };
    if (fits(metered.amount)) return { ok: true, option: metered };
  }
  return { ok: true, option: (priced ?? metered) as PayableRequirement };
}

/** The offer's `extra.paymentFlow`: `authorization` when absent, undefined when it is not a flow x402 names. */
function flowOf(raw: Record<string, unknown>): PaymentFlow | undefined {
  const extra = raw.extra;
  const named = extra && typeof extra === "object" ? (extra as Record<string, unknown>).paymentFlow : undefined;
  if (named === undefined || named === null) return "authorization";
  return PAYMENT_FLOWS.find((flow) => flow === named);
}
