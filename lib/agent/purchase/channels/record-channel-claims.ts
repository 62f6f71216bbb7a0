/**
 * What services claimed on the agent's channels, as the chain shows it: each claim becomes a
 * journal row of its channel (the history shows deposit, vouchers, claims and refund), and the
 * channel's claimed total follows the chain. Run with the reconciler, before idle refunds, so a
 * refund sees what was claimed. A channel is looked at while the chain may still owe the
 * ledger a claim: its service charged more than the ledger has seen claimed.
 */
import { BATCH_SETTLEMENT_ADDRESS } from "@x402/evm";
import type { ChannelLedger } from "../../../channels/channel-ledger";
import type { ChainReader } from "../../../x402/chain-reader";

/** How many of the agent's channels one run looks at, most recently used first. */
const CHANNELS_PER_RUN = 50;

export type ClaimRecordDependencies = {
  channels: ChannelLedger;
  chain: ChainReader;
  payer: `0x${string}`;
  log?: (entry: Record<string, unknown>) => void;
};

export async function recordChannelClaims(deps: ClaimRecordDependencies): Promise<{ recorded: number; failed: number }> {
  const report = { recorded: 0, failed: 0 };
  const read = deps.chain.channelClaims;
  if (!read) return report;
  const channels = await deps.channels.ofPayer(deps.payer, CHANNELS_PER_RUN);
  for (const channel of channels) {
    if (channel.charged <= channel.totalClaimed) continue;
    try {
      const claims = await read(BATCH_SETTLEMENT_ADDRESS as `0x${string}`, channel.channelId);
      report.recorded += await deps.channels.recordClaims(channel.channelId, claims);
    } catch (error) {
      report.failed += 1;
      deps.log?.({ level: "error", event: "channel-claims-read-failed", channelId: channel.channelId, error: String(error) });
    }
  }
  return report;
}
