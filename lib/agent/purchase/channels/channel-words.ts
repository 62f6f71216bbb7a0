/**
 * The words a channel payment's steps are shown in: which voucher on which channel, or the
 * deposit that opens it, so a person reading the stream or the history sees where the money is.
 */
import { formatUsdc } from "../../../money";
import type { Quote } from "../purchase-types";

/** A channel id short enough to read: its first and last hex digits. */
export function shortChannelId(channelId: `0x${string}`): string {
  return `${channelId.slice(0, 10)}…${channelId.slice(-4)}`;
}

export function channelWords(quote: Quote, channelId: `0x${string}`, cumulative: bigint, deposit: bigint | undefined) {
  const price = quote.option.amount;
  const channel = `channel ${shortChannelId(channelId)}`;
  // At one price per call, the cumulative amount counts the calls: this is voucher N.
  const count = price > 0n && cumulative % price === 0n ? `voucher ${cumulative / price}` : "a voucher";
  const voucher = `${count} on ${channel} (${formatUsdc(cumulative)} USDC in all)`;
  const opening = deposit === undefined ? undefined : `a deposit of ${formatUsdc(deposit)} USDC opens ${channel} with ${quote.service}`;
  return {
    /** What is sent, in a sentence's words. */
    what: deposit === undefined ? "voucher" : "deposit and its first voucher",
    signing: opening ? `Signing: ${opening}, with its first voucher.` : `Signing ${voucher}.`,
    paying: opening
      ? `Paying ${formatUsdc(price)} USDC: ${opening}; the service sends the deposit to the chain.`
      : `Paying ${formatUsdc(price)} USDC by ${voucher}.`,
    paid: (charged: bigint) =>
      opening
        ? `Paid ${formatUsdc(charged)} USDC by the first voucher on ${channel}; ${opening.replace(/^a deposit/, "the deposit")}.`
        : `Paid ${formatUsdc(charged)} USDC by ${voucher}.`,
    corrected: (charged: bigint) => `${quote.service} showed it had counted ${formatUsdc(charged)} USDC on ${channel}; the voucher is signed again from there.`,
    forgotten: `The chain holds no such channel (a local chain started again?), so the agent set it aside: the next call opens it again with a deposit.`,
    unknown: `the service may have counted the ${deposit === undefined ? "voucher" : "deposit"}, so its amount stays reserved until the channel's next answer settles it.`,
  };
}
