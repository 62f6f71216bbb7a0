/**
 * How an `exact` option of a 402 is read (EIP-3009 on EVM, x402 v1 and v2): the price, the
 * payee, the token and its EIP-712 domain.
 */
import { getAddress } from "viem";
import { z } from "zod";
import { address, baseUnits, caip2Network, type OfferReader, type PayableRequirement } from "./payable-option";

/**
 * The exact EVM scheme lets an option name how the asset moves (`extra.assetTransferMethod`):
 * we sign EIP-3009 authorizations only, so a `permit2` or `erc7710` option is not ours to pay;
 * an option that names no method is EIP-3009, the scheme's default.
 */
const domainExtra = z.looseObject({
  name: z.string().min(1).max(64),
  version: z.string().min(1).max(16),
  assetTransferMethod: z.literal("eip3009").optional(),
});

const RequirementV2 = z.looseObject({
  scheme: z.string(),
  network: caip2Network,
  amount: baseUnits,
  asset: address,
  payTo: address,
  maxTimeoutSeconds: z.number().int().positive().max(86_400),
  extra: domainExtra,
});

const RequirementV1 = z
  .looseObject({
    scheme: z.string(),
    network: z.string(),
    maxAmountRequired: baseUnits,
    asset: address,
    payTo: address,
    resource: z.string().optional(),
    description: z.string().optional(),
    maxTimeoutSeconds: z.number().int().positive().max(86_400),
    extra: domainExtra,
  })
  .transform((terms) => ({ ...terms, amount: terms.maxAmountRequired }));

export const exactOffer = {
  name: "exact" as const,
  metered: false,
  flows: ["authorization", "upfront"] as const,
  read(version: 1 | 2, raw: Record<string, unknown>): PayableRequirement | undefined {
    // v2 names the price `amount`, v1 `maxAmountRequired` (mapped to `amount` by its schema).
    const parsed = version === 2 ? RequirementV2.safeParse(raw) : RequirementV1.safeParse(raw);
    if (!parsed.success) return undefined;
    const terms = parsed.data;
    return {
      x402Version: version,
      requirements: raw,
      amount: BigInt(terms.amount),
      asset: getAddress(terms.asset),
      payTo: getAddress(terms.payTo),
      network: terms.network,
      maxTimeoutSeconds: terms.maxTimeoutSeconds,
      domain: { name: terms.extra.name, version: terms.extra.version },
    };
  },
} satisfies OfferReader;
