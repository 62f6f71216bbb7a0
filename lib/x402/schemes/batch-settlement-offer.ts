/**
 * How a `batch-settlement` option of a 402 is read (x402 v2, EVM, the deposit by EIP-3009): the
 * price of one call, the payee (the channel's receiver), the token's EIP-712 domain (for the
 * deposit's authorization) and the channel's terms the service announces: its receiver
 * authorizer, its withdraw delay and the deposit it suggests. Not metered: its amount is what one
 * call costs, paid by a cumulative voucher on the channel.
 */
import { getAddress, zeroAddress } from "viem";
import { z } from "zod";
import { address, baseUnits, caip2Network, type ChannelTerms, type OfferReader, type PayableRequirement } from "./payable-option";

/** The scheme's least withdraw delay (15 minutes) and its most (30 days), as the contract bounds it. */
const MIN_WITHDRAW_DELAY_SECONDS = 900;
const MAX_WITHDRAW_DELAY_SECONDS = 2_592_000;

/**
 * The option's extra as the official server writes it: the token's domain, the deposit's transfer
 * method (we sign ERC-3009 deposits only; a `permit2` one is not ours to pay), the receiver
 * authorizer (never zero: no claim or refund could be authorized), the withdraw delay, and an
 * optional suggested deposit, a count of base units.
 */
const channelExtra = z.looseObject({
  name: z.string().min(1).max(64),
  version: z.string().min(1).max(16),
  assetTransferMethod: z.literal("eip3009").optional(),
  receiverAuthorizer: address.refine((value) => value.toLowerCase() !== zeroAddress, "a zero receiver authorizer"),
  withdrawDelay: z.number().int().min(MIN_WITHDRAW_DELAY_SECONDS).max(MAX_WITHDRAW_DELAY_SECONDS),
  minDeposit: baseUnits.optional().catch(undefined),
});

const ChannelRequirementV2 = z.looseObject({
  scheme: z.literal("batch-settlement"),
  network: caip2Network,
  amount: baseUnits,
  asset: address,
  payTo: address,
  maxTimeoutSeconds: z.number().int().positive().max(86_400),
  extra: channelExtra,
});

export const batchSettlementOffer: OfferReader = {
  name: "batch-settlement",
  metered: false,
  flows: ["authorization"] as const,
  read(version: 1 | 2, raw: Record<string, unknown>): PayableRequirement | undefined {
    if (version !== 2) return undefined;
    const parsed = ChannelRequirementV2.safeParse(raw);
    if (!parsed.success) return undefined;
    const terms = parsed.data;
    const amount = BigInt(terms.amount);
    // A call that costs nothing needs no channel; a suggested deposit below one call's price means nothing.
    if (amount === 0n) return undefined;
    const minDeposit = terms.extra.minDeposit === undefined ? undefined : BigInt(terms.extra.minDeposit);
    const channel: ChannelTerms = {
      receiverAuthorizer: getAddress(terms.extra.receiverAuthorizer),
      withdrawDelay: terms.extra.withdrawDelay,
      ...(minDeposit !== undefined && minDeposit >= amount ? { minDeposit } : {}),
    };
    return {
      x402Version: 2,
      requirements: raw,
      amount,
      asset: getAddress(terms.asset),
      payTo: getAddress(terms.payTo),
      network: terms.network,
      maxTimeoutSeconds: terms.maxTimeoutSeconds,
      domain: { name: terms.extra.name, version: terms.extra.version },
      channel,
    };
  },
};

/** A channel option's terms; throws for an option of another scheme. */
export function channelTermsOf(option: PayableRequirement): ChannelTerms {
  if (!option.channel) throw new TypeError("not a batch-settlement option");
  return option.channel;
}

/** Whether an option was read as a `batch-settlement` one (it carries channel terms). */
export function isChannelOption(option: PayableRequirement): boolean {
  return option.channel !== undefined;
}
