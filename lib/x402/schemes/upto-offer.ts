/**
 * How an `upto` option of a 402 is read (x402 v2 only; on EVM, Permit2 only): the ceiling, the
 * payee, the token's domain, the facilitator whose account alone may settle the permit, and the
 * metering the service declared; and those terms read back from a read option.
 */
import { getAddress } from "viem";
import { z } from "zod";
import { address, baseUnits, caip2Network, type OfferReader, type PayableRequirement } from "./payable-option";

/**
 * An `upto` option's extra (x402 v2, EVM): the token's EIP-712 domain, Permit2 as the only
 * transfer method, and the facilitator whose account alone may settle the permit (it is signed
 * into the witness). A service may describe its metering there too (what a unit is and its
 * price in base units); when it does, the agent holds the settlement to it.
 */
const uptoExtra = z.looseObject({
  name: z.string().min(1).max(64),
  version: z.string().min(1).max(16),
  assetTransferMethod: z.literal("permit2").optional(),
  facilitatorAddress: address,
  metering: z
    .looseObject({ unit: z.string().max(64).optional(), unitPrice: baseUnits })
    .optional()
    .catch(undefined),
});

const UptoRequirementV2 = z.looseObject({
  scheme: z.literal("upto"),
  network: caip2Network,
  amount: baseUnits,
  asset: address,
  payTo: address,
  maxTimeoutSeconds: z.number().int().positive().max(86_400),
  extra: uptoExtra,
});

export const uptoOffer: OfferReader = {
  name: "upto",
  metered: true,
  flows: ["authorization"] as const,
  read(version: 1 | 2, raw: Record<string, unknown>): PayableRequirement | undefined {
    if (version !== 2) return undefined;
    const parsed = UptoRequirementV2.safeParse(raw);
    if (!parsed.success) return undefined;
    const terms = parsed.data;
    const unitPrice = terms.extra.metering?.unitPrice;
    return {
      x402Version: 2,
      requirements: raw,
      amount: BigInt(terms.amount),
      asset: getAddress(terms.asset),
      payTo: getAddress(terms.payTo),
      network: terms.network,
      maxTimeoutSeconds: terms.maxTimeoutSeconds,
      domain: { name: terms.extra.name, version: terms.extra.version },
      upto: { facilitator: getAddress(terms.extra.facilitatorAddress), ...(unitPrice === undefined ? {} : { unitPrice: BigInt(unitPrice) }) },
    };
  },
};

/** Whether an option was read as an `upto` one (it carries the upto terms). */
export function isUptoOption(option: PayableRequirement): boolean {
  return option.upto !== undefined;
}

/** An upto option's terms: the facilitator its permit names, and the unit price the 402 declared. */
export function uptoTermsOf(option: PayableRequirement): { facilitator: `0x${string}`; unitPrice?: bigint } {
  if (!option.upto) throw new TypeError("not an upto option");
  return option.upto;
}

/** What one unit of the metering is, as the 402 named it (bounded), when it did. */
export function meteringUnitOf(option: PayableRequirement): string | undefined {
  const unit = (option.requirements.extra as { metering?: { unit?: unknown } } | undefined)?.metering?.unit;
  return typeof unit === "string" && unit.length <= 64 ? unit : undefined;
}
