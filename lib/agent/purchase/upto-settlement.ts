/**
 * A metered (`upto`) settlement, once the chain has shown what moved (schemes/upto-scheme.ts):
 * the agent's guard for metered payments: what the service says it used (units × the unit price
 * its 402 quoted, what it says it charged, what its settlement reports) against what it took.
 */
import { z } from "zod";
import { formatUsdc } from "../../money";
import type { SettlementFlag } from "../../stream";
import type { MeteredSettlement } from "./purchase-types";

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
