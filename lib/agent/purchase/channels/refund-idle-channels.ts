/**
 * Gives back what idle channels still hold: a channel with no call for the idle time is refunded
 * cooperatively through its service (the official client's `refundChannel`: a refund voucher at
 * the charged amount, which the service claims and settles before returning the rest to the
 * payer), and the ledger records it (`refunded`: the channel closes, its deposit's reservation
 * frees what it still holds). A service that refuses, or cannot be reached, leaves the channel
 * open for the next run and the failure counted; after CHANNEL_WITHDRAW_AFTER_FAILURES in a row
 * the payer withdraws alone instead (withdraw-channels.ts: `initiateWithdraw`, then
 * `finalizeWithdraw` after the channel's delay).
 */
import { InMemoryClientChannelStorage, refundChannel } from "@x402/evm/batch-settlement/client";
import type { LocalAccount } from "viem";
import type { ChannelLedger } from "../../../channels/channel-ledger";
import type { ChainReader } from "../../../x402/chain-reader";
import type { OutboundFetch } from "../purchase-types";
import { CHANNEL_SALT, channelSigner } from "./channel-wire";

/** How many idle channels one run refunds at most. */
const REFUNDS_PER_RUN = 20;

/** How long a claimed refund keeps the channel from its calls before another run may take it again. */
const REFUND_CLAIM_MS = 120_000;

export type ChannelRefundDependencies = {
  channels: ChannelLedger;
  /** The agent wallet: it signs the refund voucher, and only its own channels are refunded. */
  account: LocalAccount;
  chain: ChainReader;
  fetch: OutboundFetch;
  /** How long a channel goes without a call before it is refunded (CHANNEL_IDLE_REFUND_SECONDS). */
  idleMs: number;
  log?: (entry: Record<string, unknown>) => void;
};

export type RefundReport = { refunded: number; failed: number; amount: bigint };

export async function refundIdleChannels(deps: ChannelRefundDependencies): Promise<RefundReport> {
  const report: RefundReport = { refunded: 0, failed: 0, amount: 0n };
  const log = deps.log ?? ((entry) => console.error(JSON.stringify(entry)));
  // Claimed, not only listed: while a channel is being refunded no call may sign on it.
  const idle = await deps.channels.claimForRefund(deps.idleMs, REFUNDS_PER_RUN, REFUND_CLAIM_MS);
  const signer = channelSigner(deps.account, deps.chain);
  const fetch: typeof globalThis.fetch = (input, init) => deps.fetch(input instanceof Request ? input.url : String(input), init);
  for (const channel of idle) {
    if (channel.payer.toLowerCase() !== deps.account.address.toLowerCase() || channel.deposited <= channel.charged) {
      // Nothing of ours to pay back (or another wallet's channel): open again for its calls.
      await deps.channels.refundFailed(channel.channelId).catch(() => undefined);
      continue;
    }
    // The client's state for this channel, from the ledger: the refund voucher signs its charged amount.
    const storage = new InMemoryClientChannelStorage();
    await storage.set(channel.channelId, {
      chargedCumulativeAmount: channel.charged.toString(),
      balance: channel.deposited.toString(),
      totalClaimed: channel.totalClaimed.toString(),
    });
    let paidBack = false;
    try {
      const settled = await refundChannel({ signer, storage, salt: CHANNEL_SALT }, channel.serviceUrl, { fetch });
      const txHash = settled.transaction;
      if (!settled.success || !/^0x[0-9a-fA-F]{64}$/.test(txHash)) throw new Error(settled.errorReason ?? "the refund named no transaction");
      paidBack = true;
      const amount = /^\d{1,30}$/.test(settled.amount ?? "") ? BigInt(settled.amount as string) : channel.deposited - channel.charged;
      await deps.channels.refunded({ channelId: channel.channelId, amount, txHash: txHash as `0x${string}` });
      report.refunded += 1;
      report.amount += amount;
      log({ level: "info", event: "channel-refunded", channelId: channel.channelId, amount: amount.toString(), txHash });
    } catch (error) {
      report.failed += 1;
      // A refund that did not happen opens the channel again and counts against the service
      // (after CHANNEL_WITHDRAW_AFTER_FAILURES in a row the payer withdraws alone:
      // withdraw-channels.ts); one the chain made but the ledger could not record stays claimed
      // (no call signs on it) until a run after REFUND_CLAIM_MS tries again.
      if (!paidBack) await deps.channels.refundRefused(channel.channelId).catch(() => undefined);
      log({ level: "error", event: "channel-refund-failed", channelId: channel.channelId, error: String(error) });
    }
  }
  return report;
}
