/**
 * The settlement of a paid request, as the chain shows it: which amount moved. For `exact` the
 * price, once the transaction used the EIP-3009 authorization; for `upto` whatever the
 * settling call moved under our permit, read from the chain and never from the service. Then
 * the agent's guard for metered payments: what the service says it used (units × the unit price
 * its 402 quoted, what it says it charged, what its settlement reports) against what it took.
 */
import { z } from "zod";
import { formatUsdc } from "../../money";
import type { SettlementFlag } from "../../stream";
import type { ChainReader } from "../../x402/chain-reader";
import { permit2NonceOf } from "../../x402/upto-permit2";
import type { MeteredSettlement, Quote } from "./purchase-types";

/** A settlement the chain shows, with the amount that moved (the price for `exact`). */
export type ProvenSettlement = { amount: bigint };

/**
 * Whether the transaction a service named settled this quote's signature, and for how much;
 * undefined while the chain does not show it (no receipt yet, or not this signature).
 */
export async function proveClaimedSettlement(chain: ChainReader, quote: Quote, txHash: `0x${string}`): Promise<ProvenSettlement | undefined> {
  if (!quote.option.upto) return (await chain.transactionUsedAuthorization(txHash, quote.payer, quote.nonce)) ? { amount: quote.option.amount } : undefined;
  const settled = await chain.permitSettlementIn(txHash, { payer: quote.payer, payTo: quote.option.payTo, nonce: permit2NonceOf(quote.nonce) });
  return settled || undefined;
}

const baseUnits = z
  .string()
  .regex(/^\d{1,30}$/)
  .transform((value) => BigInt(value));

/**
 * What a metered service declares it used, beside its answer (a `metering` object in its JSON):
 * units used, and optionally its unit price and what it says it charged. Unknown fields are
 * ignored; a malformed field is as good as absent.
 */
const Metering = z.object({
  unit: z.string().max(64).optional().catch(undefined),
  unitsUsed: z.number().int().nonnegative().max(1e12),
  unitPrice: baseUnits.optional().catch(undefined),
  charged: baseUnits.optional().catch(undefined),
});
export type Metering = z.infer<typeof Metering>;

/** The `metering` a JSON answer declares, read from a copy of the response; undefined when none. */
export async function readMetering(response: Response): Promise<Metering | undefined> {
  try {
    if (!response.headers.get("content-type")?.toLowerCase().includes("json")) return undefined;
    const body = (await response.json()) as unknown;
    const parsed = Metering.safeParse(body && typeof body === "object" ? (body as Record<string, unknown>).metering : undefined);
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}

export type SettlementReview = {
  /** What the stream and the journal show beside the payment: ceiling and settled amount. */
  amount: string;
  ceiling: string;
  settlementFlag?: SettlementFlag;
  /** For people: what was paid against what was signed, and why it is flagged when it is. */
  message: string;
};

/**
 * The agent's guard on a proven metered settlement. Expected is units used × the unit price the
 * 402 quoted (the service's later word on its price is not a term we agreed to); a settlement
 * above it, above what the service says it charged, or above what its settlement reported is
 * flagged. It can never be above the signed ceiling: the proxy and Permit2 refuse that on chain.
 */
export function reviewSettlement(input: {
  service: string;
  ceiling: bigint;
  settled: bigint;
  quotedUnitPrice?: bigint;
  metering?: Metering;
  /** The `amount` of the service's settlement response, when it sent one. */
  reported?: bigint;
}): SettlementReview {
  const { service, ceiling, settled, metering, reported } = input;
  const unitPrice = input.quotedUnitPrice ?? metering?.unitPrice;
  const expected = metering && unitPrice !== undefined ? BigInt(metering.unitsUsed) * unitPrice : undefined;
  const paid = `Paid ${formatUsdc(settled)} USDC of a signed ceiling of ${formatUsdc(ceiling)} USDC`;
  const usage = metering && unitPrice !== undefined ? `${metering.unitsUsed} × ${metering.unit ?? "unit"} at ${formatUsdc(unitPrice)} USDC` : undefined;
  const above: string[] = [];
  if (expected !== undefined && settled > expected) above.push(`the ${formatUsdc(expected)} USDC its own metering says it used (${usage})`);
  if (metering?.charged !== undefined && settled > metering.charged && metering.charged !== expected)
    above.push(`the ${formatUsdc(metering.charged)} USDC it says it charged`);
  if (reported !== undefined && settled > reported) above.push(`the ${formatUsdc(reported)} USDC its settlement reported`);
  const base = { amount: formatUsdc(settled), ceiling: formatUsdc(ceiling) };
  if (above.length > 0) {
    return {
      ...base,
      settlementFlag: "over-settled",
      message: `Flagged: ${service} settled ${formatUsdc(settled)} USDC, more than ${above.join(" and ")}. The chain held it to the signed ceiling of ${formatUsdc(ceiling)} USDC.`,
    };
  }
  if (usage) return { ...base, message: `${paid} (${usage}).` };
  return { ...base, message: `${paid}; ${service} did not say what it used.` };
}

/** A proven metered settlement: the amount that counts, and how it reads against the service's word. */
export type SettledPayment = { amount: bigint; review: SettlementReview };

/**
 * The settled amount of a proven settlement, for the ledger, the stream and the journal;
 * undefined for an `exact` payment, whose amount is its price.
 */
export function settledPayment(quote: Quote, amount: bigint | undefined, said: { metering?: Metering; reported?: bigint } = {}): SettledPayment | undefined {
  if (!quote.option.upto || amount === undefined) return undefined;
  const review = reviewSettlement({
    service: quote.service,
    ceiling: quote.option.amount,
    settled: amount,
    quotedUnitPrice: quote.option.upto.unitPrice,
    ...said,
  });
  return { amount, review };
}

/** What a delivered outcome says of a metered settlement; nothing for an exact payment. */
export function meteredOutcome(settled: SettledPayment | undefined): { metered?: MeteredSettlement } {
  if (!settled) return {};
  const { ceiling, settlementFlag, message } = settled.review;
  return { metered: { ceiling, ...(settlementFlag ? { settlementFlag } : {}), message } };
}

/** The fields a settled metered payment adds to its `confirmed` and `delivered` events. */
export function settledFields(settled: SettledPayment | undefined): { amount?: string; ceiling?: string; settlementFlag?: SettlementFlag } {
  if (!settled) return {};
  const { amount, ceiling, settlementFlag } = settled.review;
  return { amount, ceiling, ...(settlementFlag ? { settlementFlag } : {}) };
}
