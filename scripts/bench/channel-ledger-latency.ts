/**
 * Part of `npm run bench:ledger`: the two statements of a repeat call on a batch-settlement
 * channel (lib/channels), `acquire` (lease, voucher reservation, journal row) and `settle`
 * (commit, journal row, lease released), each timed alone over CALLS calls one after another on
 * one open channel, with a caller's scope as a paid turn of an API key carries.
 */
import { randomBytes } from "node:crypto";
import type { ChannelLedger } from "../../lib/channels/channel-ledger";
import { median, ms, percentile } from "./stats";

const CALLS = 300;
const PRICE = 1_000n;
const SIGNATURE = `0x${"5a".repeat(65)}` as const;
const TX = `0x${"ab".repeat(32)}` as const;

export const CHANNEL_TABLE_HEADER = ["| store | acquire, median | acquire, p95 | settle, median | settle, p95 |", "|---|---|---|---|---|"];

const address = () => `0x${randomBytes(20).toString("hex")}` as `0x${string}`;

export async function measureChannelCalls(name: string, channels: ChannelLedger): Promise<string> {
  const payer = address();
  const identity = {
    channelId: `0x${randomBytes(32).toString("hex")}` as `0x${string}`,
    payer,
    receiver: address(),
    token: address(),
    network: "eip155:31337",
    serviceUrl: "http://127.0.0.1:4021/tick",
    config: { withdrawDelay: 900, salt: "0x00" },
  };
  const budgets = { payer, payerLimit: 1_000_000_000n, scope: { key: "key:bench", dailyLimit: 1_000_000_000n } };
  const deposit = PRICE * BigInt(CALLS + 10);
  const opening = await channels.acquire({ identity, price: PRICE, budgets, reservationId: "open-v", leaseMs: 30_000 });
  if (opening.status !== "deposit-needed") throw new Error(`the new channel answered ${opening.status}`);
  await channels.reserveDeposit({ channelId: identity.channelId, lease: opening.lease, amount: deposit, budgets, reservationId: "open-d" });
  await channels.settle({
    channelId: identity.channelId,
    lease: opening.lease,
    reservationId: "open-v",
    charged: PRICE,
    chargedAmount: PRICE,
    signedMax: PRICE,
    signature: SIGNATURE,
    deposit: { total: deposit, txHash: TX, reservationId: "open-d" },
  });
  const acquires: number[] = [];
  const settles: number[] = [];
  for (let index = 0; index < CALLS; index += 1) {
    const reservationId = `v-${index}`;
    const started = performance.now();
    const call = await channels.acquire({ identity, price: PRICE, budgets, reservationId, leaseMs: 30_000 });
    const acquired = performance.now();
    if (call.status !== "voucher") throw new Error(`call ${index} answered ${call.status}`);
    const { cumulative } = call;
    await channels.settle({
      channelId: identity.channelId,
      lease: call.lease,
      reservationId,
      charged: cumulative,
      chargedAmount: PRICE,
      signedMax: cumulative,
      signature: SIGNATURE,
    });
    settles.push(performance.now() - acquired);
    acquires.push(acquired - started);
  }
  return `| ${name} | ${ms(median(acquires))} | ${ms(percentile(acquires, 95))} | ${ms(median(settles))} | ${ms(percentile(settles, 95))} |`;
}
