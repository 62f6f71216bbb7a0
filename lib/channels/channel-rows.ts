/** A `payment_channels` row as the channel ledger hands it out. */
import type { Selectable } from "kysely";
import type { PaymentChannelsTable } from "../db/schema";
import type { ChannelIdentity, ChannelState } from "./channel-ledger";

export function toChannel(row: Selectable<PaymentChannelsTable>): ChannelIdentity & ChannelState {
  const config = (typeof row.config === "string" ? JSON.parse(row.config) : row.config) as ChannelIdentity["config"];
  return {
    channelId: row.channel_id as `0x${string}`,
    payer: row.payer as `0x${string}`,
    receiver: row.receiver as `0x${string}`,
    token: row.token as `0x${string}`,
    network: row.network,
    serviceUrl: row.service_url,
    config,
    deposited: BigInt(row.deposited),
    charged: BigInt(row.charged),
    signedMax: BigInt(row.signed_max),
    ...(row.signature ? { signature: row.signature as `0x${string}` } : {}),
    totalClaimed: BigInt(row.total_claimed),
    state: row.state,
    refundFailures: Number(row.refund_failures ?? 0),
    ...(row.withdraw_ready_at === null || row.withdraw_ready_at === undefined ? {} : { withdrawReadyAt: BigInt(row.withdraw_ready_at) }),
    ...(row.withdraw_tx ? { withdrawTx: row.withdraw_tx as `0x${string}` } : {}),
  };
}
