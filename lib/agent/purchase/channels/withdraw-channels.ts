/**
 * The payer's own withdrawal from channels whose service will not refund (docs/decisions.md,
 * "Channel state and budgets in the database"). A channel whose cooperative refund failed
 * CHANNEL_WITHDRAW_AFTER_FAILURES times in a row is no longer asked: the agent wallet sends
 * `initiateWithdraw` for what the chain shows unclaimed, and the ledger holds the channel
 * "withdrawing" (its calls wait). A later run, once the chain's latest block is past the
 * channel's delay, sends `finalizeWithdraw` and records what the contract paid back with the
 * ledger's `refunded` (the channel closes, its deposit's reservation frees what it held).
 * During the delay the service may still claim what its vouchers allow; the finalize pays
 * back only what is left, and that is the amount recorded. Every step is claimed in the
 * database first, so two instances never send the same one.
 */
import type { ChannelLedger } from "../../../channels/channel-ledger";
import { onChainConfigOf, type WithdrawalChain } from "./channel-withdrawal-chain";

/** How many channels one run initiates, and finalizes, at most. */
const WITHDRAWALS_PER_RUN = 20;

/** How long one instance's claim on a step (a transaction and its receipt) keeps others from it. */
const WITHDRAW_CLAIM_MS = 120_000;

export type ChannelWithdrawalDependencies = {
  channels: ChannelLedger;
  /** The agent wallet: the payer of the channels it withdraws, and the sender of both steps. */
  account: { address: `0x${string}` };
  chain: WithdrawalChain;
  /** Cooperative refunds failed in a row before the payer withdraws alone (CHANNEL_WITHDRAW_AFTER_FAILURES). */
  failures: number;
  log?: (entry: Record<string, unknown>) => void;
};

export type WithdrawalReport = { started: number; finished: number; failed: number; amount: bigint };

export async function withdrawChannels(deps: ChannelWithdrawalDependencies): Promise<WithdrawalReport> {
  const report: WithdrawalReport = { started: 0, finished: 0, failed: 0, amount: 0n };
  const log = deps.log ?? ((entry) => console.error(JSON.stringify(entry)));
  await finalizeDue(deps, report, log);
  await initiate(deps, report, log);
  return report;
}

type Log = (entry: Record<string, unknown>) => void;

async function finalizeDue(deps: ChannelWithdrawalDependencies, report: WithdrawalReport, log: Log): Promise<void> {
  // The chain's clock decides when the delay is over, never this instance's.
  const chainNow = await deps.chain.nowSeconds();
  const due = await deps.channels.claimDueWithdrawals(chainNow, WITHDRAWALS_PER_RUN, WITHDRAW_CLAIM_MS);
  for (const channel of due) {
    // Once a transaction left, the claim is kept until it ends: the next run reads the chain.
    let left = false;
    try {
      const finalized = await deps.chain.finalize(onChainConfigOf(channel.config), channel.channelId);
      left = !finalized.ok && finalized.sent === true;
      if (!finalized.ok && left) throw new Error(finalized.detail);
      if (!finalized.ok) {
        // Too early by the chain's clock (or refused): left for the next run.
        await deps.channels.withdrawalReleased(channel.channelId);
        if (finalized.reason !== "WithdrawDelayNotElapsed") report.failed += 1;
        log({ level: "warn", event: "channel-withdraw-finalize-refused", channelId: channel.channelId, reason: finalized.reason, detail: finalized.detail });
        continue;
      }
      left = true;
      await deps.channels.refunded({ channelId: channel.channelId, amount: finalized.amount, txHash: finalized.txHash });
      report.finished += 1;
      report.amount += finalized.amount;
      log({ level: "info", event: "channel-withdrawn", channelId: channel.channelId, amount: finalized.amount.toString(), txHash: finalized.txHash });
    } catch (error) {
      report.failed += 1;
      // A finalize sent without a receipt, or one the chain made but the ledger could not record,
      // stays claimed until its claim ends; the next run's finalize then pays, or finds the mined
      // one (NoPendingWithdrawal, its event). Anything else failed before a transaction left.
      if (!left) await deps.channels.withdrawalReleased(channel.channelId).catch(() => undefined);
      log({ level: "error", event: "channel-withdraw-finalize-failed", channelId: channel.channelId, error: String(error) });
    }
  }
}

async function initiate(deps: ChannelWithdrawalDependencies, report: WithdrawalReport, log: Log): Promise<void> {
  const taken = await deps.channels.claimForWithdrawal(deps.failures, WITHDRAWALS_PER_RUN, WITHDRAW_CLAIM_MS);
  for (const channel of taken) {
    let sent = false;
    try {
      if (channel.payer.toLowerCase() !== deps.account.address.toLowerCase()) throw new Error("another wallet's channel: only its payer may withdraw");
      const config = onChainConfigOf(channel.config);
      const onChain = await deps.chain.channel(channel.channelId);
      const delay = BigInt(config.withdrawDelay);
      if (onChain.pending) {
        // Initiated already (an instance died before recording it): wait for it.
        await deps.channels.withdrawalStarted({ channelId: channel.channelId, amount: onChain.pending.amount, readyAt: onChain.pending.initiatedAt + delay });
        report.started += 1;
        continue;
      }
      if (onChain.available <= 0n) throw new Error("the chain shows nothing unclaimed on the channel");
      const initiated = await deps.chain.initiate(config, channel.channelId, onChain.available);
      sent = initiated.ok || initiated.sent === true;
      if (!initiated.ok) throw new Error(initiated.detail);
      const readyAt = initiated.initiatedAt + delay;
      await deps.channels.withdrawalStarted({ channelId: channel.channelId, amount: onChain.available, readyAt, txHash: initiated.txHash });
      report.started += 1;
      log({
        level: "info",
        event: "channel-withdraw-initiated",
        channelId: channel.channelId,
        amount: onChain.available.toString(),
        readyAt: readyAt.toString(),
        txHash: initiated.txHash,
      });
    } catch (error) {
      report.failed += 1;
      // Not initiated: the channel opens again and the next run tries again. Sent (mined or
      // without a receipt yet) but not recorded: it stays claimed; after the claim the next run
      // finds it pending on the chain, or initiates again.
      if (!sent) await deps.channels.withdrawalReleased(channel.channelId).catch(() => undefined);
      log({ level: "error", event: "channel-withdraw-initiate-failed", channelId: channel.channelId, error: String(error) });
    }
  }
}
