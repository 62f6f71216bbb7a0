/**
 * The wire half of a channel payment, by the official client's own code
 * (`@x402/evm/batch-settlement/client`): the channel a payer opens with a service (its config and
 * id), the deposit payload (ERC-3009 to the deposit collector, with the first voucher), a voucher
 * for a cumulative amount, what a service's answer says it charged, and the state a corrective
 * 402 proves. The client keeps its state in a `ClientChannelStorage`; here that storage holds
 * one channel for one step, filled from the channel ledger's state and read back after it, so
 * the ledger stays the only record.
 */
import type { PaymentPayload, PaymentRequired as SdkPaymentRequired, PaymentRequirements } from "@x402/core/types";
import { toClientEvmSigner } from "@x402/evm";
import {
  buildChannelConfig,
  computeChannelId,
  createBatchSettlementEIP3009DepositPayload,
  InMemoryClientChannelStorage,
  processCorrectivePaymentRequired,
  readChannelBalanceAndTotalClaimed,
  signVoucher,
  updateChannelFromSettle,
  type BatchSettlementClientContext,
} from "@x402/evm/batch-settlement/client";
import type { LocalAccount } from "viem";
import { z } from "zod";
import type { ChannelIdentity, ChannelState } from "../../../channels/channel-ledger";
import type { ChainReader } from "../../../x402/chain-reader";
import { acceptedRequirementsOf, sdkRequirementsOf } from "../../../x402/payment-payload";
import type { PaymentRequired } from "../../../x402/payment-requirements";
import type { SchemeQuote } from "../schemes/payment-scheme";

/** The official client's signer for the agent wallet, with the chain's view calls for corrective 402s. */
export type ChannelSigner = ReturnType<typeof toClientEvmSigner>;

/** Every channel of this agent has the default salt: one channel per payer and service payee. */
export const CHANNEL_SALT = `0x${"0".repeat(64)}` as const;

export function channelSigner(account: LocalAccount, chain: ChainReader): ChannelSigner {
  const read = chain.readContract;
  return toClientEvmSigner(account, read ? { readContract: (args) => read(args) } : undefined);
}

/** The official client's dependencies for one step, its storage holding this channel's state. */
function clientDeps(signer: ChannelSigner, channelId: `0x${string}`, state: Partial<ChannelState> | undefined) {
  const storage = new InMemoryClientChannelStorage();
  const context: BatchSettlementClientContext | undefined = state
    ? {
        chargedCumulativeAmount: String(state.charged ?? 0n),
        balance: String(state.deposited ?? 0n),
        totalClaimed: String(state.totalClaimed ?? 0n),
        ...(state.signedMax === undefined ? {} : { signedMaxClaimable: String(state.signedMax) }),
        ...(state.signature ? { signature: state.signature } : {}),
      }
    : undefined;
  const filled = context ? storage.set(channelId, context) : Promise.resolve();
  return { deps: { signer, storage, salt: CHANNEL_SALT }, filled, read: () => storage.get(channelId) };
}

/**
 * Channel configs and ids already computed, by payer and requirements: the id is a hash of the
 * config (about a millisecond of CPU), the same for every call on a channel. Bounded; a pure
 * function's results, so an entry is never stale.
 */
const channelIds = new Map<string, { config: ReturnType<typeof buildChannelConfig>; channelId: `0x${string}` }>();
const MAX_CHANNEL_IDS = 512;

/** The channel this payer opens with the quote's service, as the client builds it, and how the ledger knows it. */
export function channelOf(
  signer: ChannelSigner,
  quote: Pick<SchemeQuote, "option" | "payer"> & { url: string },
): { identity: ChannelIdentity; requirements: PaymentRequirements } {
  const requirements = acceptedRequirementsOf(quote.option);
  const key = `${signer.address}\n${JSON.stringify(requirements)}`;
  let known = channelIds.get(key);
  if (!known) {
    const built = buildChannelConfig({ signer, storage: new InMemoryClientChannelStorage(), salt: CHANNEL_SALT }, requirements);
    known = { config: built, channelId: computeChannelId(built, requirements.network).toLowerCase() as `0x${string}` };
    if (channelIds.size >= MAX_CHANNEL_IDS) channelIds.clear();
    channelIds.set(key, known);
  }
  const { config, channelId } = known;
  return {
    requirements,
    identity: {
      channelId,
      payer: quote.payer,
      receiver: quote.option.payTo,
      token: quote.option.asset,
      network: quote.option.network,
      serviceUrl: quote.url,
      config: { ...config },
    },
  };
}

/** The payload's envelope: the accepted requirement echoed as it came, the resource and the extensions. */
function envelope(quote: SchemeQuote, requirements: PaymentRequirements, payload: Record<string, unknown>): PaymentPayload {
  return {
    x402Version: 2,
    accepted: requirements,
    payload,
    ...(quote.resource ? { resource: quote.resource } : {}),
    ...(quote.extensions ? { extensions: quote.extensions } : {}),
  };
}

/** A voucher for `cumulative` on the channel: the client's voucher payload. */
export async function voucherPayload(
  signer: ChannelSigner,
  quote: SchemeQuote,
  channel: { identity: ChannelIdentity; requirements: PaymentRequirements },
  cumulative: bigint,
) {
  const voucher = await signVoucher(signer, channel.identity.channelId, cumulative.toString(), channel.requirements.network);
  return { payment: envelope(quote, channel.requirements, { type: "voucher", channelConfig: channel.identity.config, voucher }), signature: voucher.signature };
}

/** A deposit of `amount` with its first voucher for `cumulative`: the client's ERC-3009 deposit payload. */
export async function depositPayload(
  signer: ChannelSigner,
  quote: SchemeQuote,
  channel: { identity: ChannelIdentity; requirements: PaymentRequirements },
  amount: bigint,
  cumulative: bigint,
) {
  const config = buildChannelConfig({ signer, storage: new InMemoryClientChannelStorage(), salt: CHANNEL_SALT }, channel.requirements);
  const result = await createBatchSettlementEIP3009DepositPayload(signer, 2, channel.requirements, config, amount.toString(), cumulative.toString());
  const voucher = (result.payload as { voucher?: { signature?: `0x${string}` } }).voucher;
  if (!voucher?.signature) throw new TypeError("the client's deposit payload carries no voucher");
  return { payment: envelope(quote, channel.requirements, result.payload), signature: voucher.signature };
}

/** What a channel service's PAYMENT-RESPONSE says (the official server's words), validated. */
const ChannelSettlement = z.looseObject({
  success: z.literal(true),
  transaction: z.string().optional(),
  extra: z
    .looseObject({
      chargedAmount: z
        .string()
        .regex(/^\d{1,30}$/)
        .optional(),
      channelState: z
        .looseObject({
          chargedCumulativeAmount: z
            .string()
            .regex(/^\d{1,30}$/)
            .optional(),
          totalClaimed: z
            .string()
            .regex(/^\d{1,30}$/)
            .optional(),
        })
        .optional(),
    })
    .optional(),
});

/** A delivered call as the ledger records it. */
export type ChannelAnswer = { charged: bigint; chargedAmount: bigint; totalClaimed?: bigint; depositTx?: `0x${string}` };

/**
 * The service's charge, read by the client's own rule (`updateChannelFromSettle`): its charge is
 * at most the price (else it throws), and its cumulative amount is taken only when it equals ours
 * plus that charge. Undefined when the answer is not a channel settlement.
 */
export async function readChannelAnswer(
  signer: ChannelSigner,
  state: { channelId: `0x${string}`; charged: bigint; deposited: bigint },
  settlement: unknown,
  local: { price: bigint; deposit?: bigint },
): Promise<ChannelAnswer | undefined> {
  const parsed = ChannelSettlement.safeParse(settlement);
  if (!parsed.success) return undefined;
  const { deps, filled, read } = clientDeps(signer, state.channelId, state);
  await filled;
  const chargedAmount = parsed.data.extra?.chargedAmount;
  await updateChannelFromSettle(deps.storage, {
    server: { chargedAmount, chargedCumulativeAmount: parsed.data.extra?.channelState?.chargedCumulativeAmount },
    local: {
      channelId: state.channelId,
      requestAmount: local.price.toString(),
      ...(local.deposit === undefined ? {} : { depositAmount: local.deposit.toString() }),
    },
  });
  const after = await read();
  const claimed = parsed.data.extra?.channelState?.totalClaimed;
  const transaction = parsed.data.transaction;
  return {
    charged: BigInt(after?.chargedCumulativeAmount ?? state.charged),
    chargedAmount: BigInt(chargedAmount ?? "0"),
    ...(claimed === undefined ? {} : { totalClaimed: BigInt(claimed) }),
    ...(transaction && /^0x[0-9a-fA-F]{64}$/.test(transaction) ? { depositTx: transaction as `0x${string}` } : {}),
  };
}

/**
 * The state a corrective 402 proves, checked by the client (`processCorrectivePaymentRequired`:
 * the server's last voucher must carry this wallet's signature, and its charge may not be below
 * what the chain shows claimed); undefined when it proves nothing.
 */
export async function correctedState(signer: ChannelSigner, channelId: `0x${string}`, paymentRequired: PaymentRequired | undefined) {
  const sdkRequired = asSdkPaymentRequired(paymentRequired);
  if (!sdkRequired) return undefined;
  const { deps, read } = clientDeps(signer, channelId, undefined);
  if (!(await processCorrectivePaymentRequired(deps, sdkRequired).catch(() => false))) return undefined;
  const context = await read();
  if (!context?.chargedCumulativeAmount) return undefined;
  const charged = BigInt(context.chargedCumulativeAmount);
  return {
    charged,
    deposited: BigInt(context.balance ?? "0"),
    totalClaimed: BigInt(context.totalClaimed ?? "0"),
    signedMax: BigInt(context.signedMaxClaimable ?? context.chargedCumulativeAmount),
    ...(context.signature ? { signature: context.signature } : {}),
  } satisfies Omit<ChannelState, "channelId" | "state">;
}

/**
 * Whether the chain holds nothing for this channel (no balance, nothing ever claimed): a channel
 * the ledger remembers but this chain never had (the local world's chain starts again on each
 * run). False when it holds something or cannot be read.
 */
export async function channelAbsentOnChain(signer: ChannelSigner, channelId: `0x${string}`): Promise<boolean> {
  if (!signer.readContract) return false;
  try {
    const [balance, totalClaimed] = await readChannelBalanceAndTotalClaimed(signer, channelId);
    return balance === 0n && totalClaimed === 0n;
  } catch {
    return false;
  }
}

/** A v2 payment request whose options are in the protocol's shape, as the SDK types it. */
function asSdkPaymentRequired(value: PaymentRequired | undefined): SdkPaymentRequired | undefined {
  if (!value || value.x402Version !== 2) return undefined;
  const accepts = value.accepts.map(sdkRequirementsOf).filter((accept) => accept !== undefined);
  return { x402Version: 2, ...(value.error === undefined ? {} : { error: value.error }), resource: { url: value.resource?.url ?? "" }, accepts };
}
