/**
 * What services claimed on the agent's channels, and what their receivers were paid out, as the
 * chain shows it:
 * - each claim becomes a journal row of its channel, and the channel's claimed total follows the
 *   chain. A channel is looked at while the chain may still owe the ledger a claim: its service
 *   charged more than the ledger has seen claimed.
 * - each payout (`settle(receiver, token)`, which pays every claim of that receiver made before
 *   it) becomes a journal row of each channel whose claims it covers, with that channel's share.
 *   A receiver is looked at while some recorded claim waits for its payout.
 * So the history shows deposit, vouchers, claims, payout and refund. Run with the reconciler,
 * before idle refunds, so a refund sees what was claimed.
 */
import { BATCH_SETTLEMENT_ADDRESS } from "@x402/evm";
import type { ChannelLedger } from "../../../channels/channel-ledger";
import type { ChainReader } from "../../../x402/chain-reader";

/** How many of the agent's channels (and receivers waiting for a payout) one run looks at, most recently used first. */
const CHANNELS_PER_RUN = 50;

export type ClaimRecordDependencies = {
  channels: ChannelLedger;
  chain: ChainReader;
  payer: `0x${string}`;
  log?: (entry: Record<string, unknown>) => void;
};

/** `recorded`: claims journaled; `payouts`: channels' payout rows journaled; `failed`: reads that failed (tried again next run). */
export type ClaimRecordReport = { recorded: number; payouts: number; failed: number };

export async function recordChannelClaims(deps: ClaimRecordDependencies): Promise<ClaimRecordReport> {
  const report = { recorded: 0, payouts: 0, failed: 0 };
  const contract = BATCH_SETTLEMENT_ADDRESS as `0x${string}`;
  const read = deps.chain.channelClaims;
  if (!read) return report;
  const channels = await deps.channels.ofPayer(deps.payer, CHANNELS_PER_RUN);
  for (const channel of channels) {
    if (channel.charged <= channel.totalClaimed) continue;
    try {
      const claims = await read(contract, channel.channelId);
      report.recorded += await deps.channels.recordClaims(channel.channelId, claims);
    } catch (error) {
      report.failed += 1;
      deps.log?.({ level: "error", event: "channel-claims-read-failed", channelId: channel.channelId, error: String(error) });
    }
  }
  const payouts = deps.chain.receiverSettlements;
  if (!payouts) return report;
  for (const waiting of await deps.channels.unpaidClaims(deps.payer, CHANNELS_PER_RUN)) {
    try {
      // Oldest first: each claim is marked covered by the first payout after it.
      for (const payout of await payouts(contract, waiting.receiver, waiting.token, waiting.fromBlock)) {
        report.payouts += await deps.channels.recordPayout({ receiver: waiting.receiver, token: waiting.token, payout });
      }
    } catch (error) {
      report.failed += 1;
      deps.log?.({ level: "error", event: "channel-payouts-read-failed", receiver: waiting.receiver, error: String(error) });
    }
  }
  return report;
}
