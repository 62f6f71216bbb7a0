/**
 * A repeat call's channel turn, taken while the service is still being asked. Where this
 * instance's last purchase of a URL from a payer paid through a channel, the next purchase of it
 * takes that channel's turn and the ledger's `acquire` (lease, the price reserved, the voucher's
 * journal row) at once, beside its unpaid request, so the statement's round trip is off the hot
 * path. The purchase then checks the service's offer, the limits and the policy as always:
 *
 * - the offer is for the same channel and price: the purchase pays on this turn (`take`);
 * - anything else (another channel or price, a refusal, a free answer, a failure): `release`
 *   gives the turn back and `abandon`s the acquisition as unused: its reservation is freed and
 *   its journal row removed, since nothing was signed on it. A failure the stream showed under
 *   the purchase's id keeps the row the request's tracker wrote for it.
 *
 * What is remembered is a hint of this instance only, bounded; the ledger decides everything.
 */
import { randomBytes } from "node:crypto";
import type { AcquireResult, ChannelBudgets, ChannelIdentity, ChannelJournalFacts, ChannelLedger } from "../../../channels/channel-ledger";
import type { PayableRequirement } from "../../../x402/payment-requirements";
import { urlKeyOf } from "../balance-first";
import { inTurn, type HoldTurn } from "./channel-queue";

/** What a purchase pays on the turn: given the turn's hold and the acquisition made at its start. */
export type TurnWork<T> = (holdTurn: HoldTurn, acquired?: Promise<AcquireResult | { status: "unavailable" }>) => Promise<T>;

export type EarlyTurn = {
  channelId: `0x${string}`;
  price: bigint;
  /** The acquisition's reservation: the quote's nonce when the turn is taken. */
  reservationId: `0x${string}`;
  /** The purchase's id, under which the acquisition journaled its row. */
  paymentId: string;
  /** Whether the service's option is for this turn's channel and price (then the quote's nonce and id are the turn's). */
  fits(option: PayableRequirement): boolean;
  /** Pays on this turn; its result once `work` has finished. */
  take<T>(work: TurnWork<T>): Promise<T>;
  /** Gives the turn back unused (a no-op once taken); resolves when the turn has ended. */
  release(): Promise<void>;
};

type Remembered = { identity: ChannelIdentity; price: bigint };

const lastChannels = new Map<string, Remembered>();
const MAX_REMEMBERED = 1_000;

/** Resolves after the work queued by this turn of the event loop (promise jobs, then I/O) has run. */
function afterThisTurn(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

/** The payer and URL as remembered (balance-first.ts's key of a URL). */
function keyOf(payer: string, url: string): string {
  return `${payer.toLowerCase()} ${urlKeyOf(url)}`;
}

/** Remembers (or, with `undefined`, forgets) the channel a payer's purchase of a URL paid through. */
export function rememberChannel(payer: string, url: string, channel: Remembered | undefined): void {
  const key = keyOf(payer, url);
  if (!channel) {
    lastChannels.delete(key);
    return;
  }
  if (!lastChannels.has(key) && lastChannels.size >= MAX_REMEMBERED) lastChannels.clear();
  lastChannels.set(key, channel);
}

/**
 * Starts the turn of the channel this payer's last purchase of `url` paid through, and its
 * acquisition; undefined when none is remembered.
 */
export function startEarlyTurn(input: {
  ledger: ChannelLedger;
  /** The channel a quote's option is for (channel-wire.ts's `channelOf`). */
  channelIdOf: (option: PayableRequirement) => `0x${string}`;
  payer: string;
  url: string;
  budgets: ChannelBudgets;
  journal: ChannelJournalFacts;
  leaseMs: number;
  log?: (entry: Record<string, unknown>) => void;
}): EarlyTurn | undefined {
  const remembered = lastChannels.get(keyOf(input.payer, input.url));
  if (!remembered) return undefined;
  const { ledger } = input;
  const { identity, price } = remembered;
  const reservationId = `0x${randomBytes(32).toString("hex")}` as const;
  let choose!: (work: TurnWork<unknown> | undefined) => void;
  const chosen = new Promise<TurnWork<unknown> | undefined>((resolve) => {
    choose = resolve;
  });
  const turn = inTurn(ledger, identity.channelId, async (holdTurn) => {
    // Sent once this turn of the event loop has sent the unpaid request: a socket write costs
    // real CPU time, and the service's answer is the longer wait, so its request goes first.
    const acquired = afterThisTurn()
      .then(() => ledger.acquire({ identity, price, budgets: input.budgets, reservationId, leaseMs: input.leaseMs, journal: input.journal }))
      .catch((): { status: "unavailable" } => ({ status: "unavailable" }));
    const work = await chosen;
    if (work) return work(holdTurn, acquired);
    const result = await acquired;
    if ("lease" in result) {
      await ledger
        .abandon({ channelId: identity.channelId, lease: result.lease, reservationId, spent: "unused" })
        .catch((error: unknown) => input.log?.({ level: "error", event: "channel-abandon-failed", channelId: identity.channelId, error: String(error) }));
    }
    return undefined;
  });
  return {
    channelId: identity.channelId,
    price,
    reservationId,
    paymentId: input.journal.paymentId,
    fits: (option) => option.amount === price && input.channelIdOf(option) === identity.channelId,
    take: <T>(work: TurnWork<T>) => {
      choose(work);
      return turn as Promise<T>;
    },
    release: async () => {
      choose(undefined);
      await turn.catch(() => undefined);
    },
  };
}
