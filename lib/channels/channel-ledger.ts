/**
 * The ledger of x402 batch-settlement channels: what we and each service agreed on, the lease
 * that serializes calls on one channel across instances, and how a channel's deposit and
 * vouchers count against budgets (docs/decisions.md, "Channel state and budgets in the
 * database"). The database store implements it (database-channel-ledger.ts); the memory and
 * Redis stores have none, and a purchase then does not choose channel offers.
 */
import type { ChannelClaim, ReceiverSettlement } from "../x402/chain-reader";

export type { ChannelClaim, ReceiverSettlement } from "../x402/chain-reader";

/** A receiver and token whose payout the payer's recorded claims still wait for, and the first block to look from. */
export type UnpaidClaims = { receiver: `0x${string}`; token: `0x${string}`; fromBlock: bigint };

/** The budgets one payment counts against, as reserve-budget.ts gives them to the ledger. */
export type ChannelBudgets = {
  /** The paying wallet (lower-cased inside). */
  payer: `0x${string}`;
  /** The payer's daily cap. */
  payerLimit: bigint;
  scope?: { key: string; dailyLimit: bigint };
  pool?: { key: string; dailyLimit: bigint };
};

/** What identifies a channel; `config` is @x402/evm's ChannelConfig as JSON (bigints as strings). */
export type ChannelIdentity = {
  /** computeChannelId(config, network), lower-case hex. */
  channelId: `0x${string}`;
  payer: `0x${string}`;
  /** The service's payTo. */
  receiver: `0x${string}`;
  token: `0x${string}`;
  /** CAIP-2. */
  network: string;
  /** An URL of the service (for refunds and the history). */
  serviceUrl: string;
  config: Record<string, string | number>;
};

export type ChannelState = {
  channelId: `0x${string}`;
  /** Total deposited and confirmed. */
  deposited: bigint;
  /** The server's charged cumulative amount, as last acknowledged. */
  charged: bigint;
  /** The highest cumulative amount we signed. */
  signedMax: bigint;
  /** Our voucher signature for signedMax. */
  signature?: `0x${string}`;
  /** What the chain shows claimed (from the server's answers). */
  totalClaimed: bigint;
  state: "opening" | "open" | "refunding" | "withdrawing" | "closed";
  /** Cooperative refunds the service failed in a row (`refundRefused`). */
  refundFailures?: number;
  /** While "withdrawing": the chain's time (epoch seconds) from which `finalizeWithdraw` is allowed, once initiated. */
  withdrawReadyAt?: bigint;
  /** While "withdrawing": the `initiateWithdraw` transaction, when known. */
  withdrawTx?: `0x${string}`;
};

/**
 * What the journal row of a call (acquire: the voucher) or a deposit (reserveDeposit) says
 * beside the channel's own facts. `paymentId` is the row's id (the stream's payment id);
 * absent, the reservation id. The ledger writes these rows; the caller does not write them again.
 */
export type ChannelJournalFacts = {
  paymentId: string;
  payerKind?: "agent" | "user";
  service?: string;
  resource?: string;
  requestKey?: string;
  conversationId?: string;
};

export type ChannelRefusal = { status: "refused"; reason: "daily" | "scope" | "pool"; spent: bigint; reserved: bigint; dailyLimit: bigint };

export type AcquireResult =
  /** The lease is ours: sign a voucher for `cumulative` (= charged + price). The price is reserved. */
  | { status: "voucher"; lease: string; channel: ChannelState; cumulative: bigint }
  /**
   * The lease is ours, but the channel is unknown (state "opening") or its deposit cannot cover
   * charged + price: deposit first. `room` is the least remaining budget across payer, scope and
   * pool (what a deposit may be at most). Nothing is reserved yet. The first voucher (for
   * `cumulative`) goes with the deposit; `settle` pays it out of the deposit's reservation.
   */
  | { status: "deposit-needed"; lease: string; channel: ChannelState | undefined; room: bigint; cumulative: bigint }
  /**
   * Another call holds the channel; try again after `retryInMs` (its lease ends by then at the
   * latest). `withdrawing`: the payer is withdrawing its deposit alone, so no call will be taken
   * before the channel closes (the withdrawal's delay is minutes at least).
   */
  | { status: "busy"; retryInMs: number; withdrawing?: true }
  /** A budget refuses the price (for a deposit: its room is below the price): which one and its figures, as ReserveResult says. */
  | ChannelRefusal;

export interface ChannelLedger {
  /**
   * ONE statement: lock the channel row (create it in state "opening" when unknown), refuse if a
   * live lease is held (busy), else take the lease (`leaseMs`, on the database's clock) and, when
   * the deposit covers charged + price, reserve the price in the budgets under `reservationId`
   * and return the next cumulative amount. Writes the voucher's journal row ("signing").
   */
  acquire(input: {
    identity: ChannelIdentity;
    price: bigint;
    budgets: ChannelBudgets;
    reservationId: string;
    leaseMs: number;
    journal?: ChannelJournalFacts;
  }): Promise<AcquireResult>;

  /** Under the lease: reserve a deposit of `amount` in the budgets (refused like a payment when it no longer fits). */
  reserveDeposit(input: {
    channelId: `0x${string}`;
    lease: string;
    amount: bigint;
    budgets: ChannelBudgets;
    reservationId: string;
    journal?: ChannelJournalFacts;
  }): Promise<{ ok: true } | ChannelRefusal>;

  /**
   * ONE statement, under the lease: the call was answered. Records the server's `charged`
   * cumulative and this call's `chargedAmount`, our voucher, a confirmed deposit (`deposit.total`:
   * the new total), commits the voucher's reservation at `chargedAmount` (the rest goes back to
   * the deposit's reservation), releases the lease, and moves the voucher's journal row to
   * "delivered". `chargedAmount` above the price is refused (RangeError) and changes nothing:
   * the lease and the reservation stay, for `abandon` (spent "unknown") to end. A lease another
   * call took over (ours expired) is refused with ChannelLeaseLostError, nothing recorded.
   * A repeat of a settle that succeeded is a no-op.
   */
  settle(input: {
    channelId: `0x${string}`;
    lease: string;
    reservationId: string;
    charged: bigint;
    chargedAmount: bigint;
    signedMax: bigint;
    signature: `0x${string}`;
    deposit?: { total: bigint; txHash: `0x${string}`; reservationId: string };
    totalClaimed?: bigint;
  }): Promise<void>;

  /**
   * Under the lease: the call ended without a charge we know of. `spent: "nothing"` releases the
   * voucher's (and an unconfirmed deposit's) reservation; `spent: "unknown"` keeps them reserved.
   * `spent: "unused"` is "nothing" for an acquisition no call used (an early turn given back):
   * its journal row goes too, unless another writer moved it past `signing`.
   * Releases the lease either way (only if still ours; the reservations are handled even if not).
   */
  abandon(input: {
    channelId: `0x${string}`;
    lease: string;
    reservationId: string;
    depositReservationId?: string;
    spent: "nothing" | "unknown" | "unused";
  }): Promise<void>;

  /** Under the lease: the server's corrective 402 proved its state; adopt it. */
  resync(input: { channelId: `0x${string}`; lease: string; channel: Omit<ChannelState, "channelId" | "state"> }): Promise<void>;

  /** Channels with no call for `idleMs` (database clock), open, no live lease: candidates for a refund. */
  idle(idleMs: number, limit: number): Promise<(ChannelIdentity & ChannelState)[]>;
  /**
   * Takes idle channels for a refund, at most `limit`, in one statement: each is then
   * "refunding" (every `acquire` answers busy) until `refunded` closes it or `refundFailed`
   * opens it again, so no call signs a voucher while its deposit is being paid back, and two
   * instances never refund one channel. A refund not ended within `refundMs` (a crashed
   * instance) is taken again by the next claim.
   */
  claimForRefund(idleMs: number, limit: number, refundMs: number): Promise<(ChannelIdentity & ChannelState)[]>;
  /**
   * Claims the chain shows a service made on the channel: each not yet journaled becomes a
   * journal row (`claim:<channel id>:<tx>`, confirmed, its amount) and the channel's claimed
   * total follows the chain. Idempotent: a claim is recorded once, however often it is read.
   */
  recordClaims(channelId: `0x${string}`, claims: readonly ChannelClaim[]): Promise<number>;
  /** The receivers (and tokens) whose payout some of the payer's recorded claims still wait for, at most `limit`, the most recently claiming first. */
  unpaidClaims(payer: `0x${string}`, limit: number): Promise<UnpaidClaims[]>;
  /**
   * A receiver's payout as the chain shows it (`settle(receiver, token)` pays every claim made
   * before it): the claims it covers are marked, and each channel covered gets a journal row of
   * its share (`settle:<channel id>:<tx>`, confirmed, the payout's transaction). Idempotent;
   * returns the channels journaled.
   */
  recordPayout(input: { receiver: `0x${string}`; token: `0x${string}`; payout: ReceiverSettlement }): Promise<number>;
  /** A claimed refund did not happen: the channel is open again. */
  refundFailed(channelId: `0x${string}`): Promise<void>;
  /**
   * A claimed refund failed because the service refused it or could not be reached: the channel
   * is open again and its count of refunds failed in a row grows by one (returned). After
   * CHANNEL_WITHDRAW_AFTER_FAILURES of them the payer withdraws alone (`claimForWithdrawal`).
   */
  refundRefused(channelId: `0x${string}`): Promise<number>;
  /**
   * Takes, in one statement, at most `limit` open channels whose refunds failed `failures` times
   * in a row and that no call holds (and initiations another instance claimed and never
   * recorded): each is then "withdrawing", where every `acquire` answers busy until `refunded`
   * closes it. The claim on its initiation ends after `claimMs` (database clock).
   */
  claimForWithdrawal(failures: number, limit: number, claimMs: number): Promise<(ChannelIdentity & ChannelState)[]>;
  /** `initiateWithdraw` was mined (or found pending on the chain): the channel waits until `readyAt` (chain seconds); journaled with its transaction. */
  withdrawalStarted(input: { channelId: `0x${string}`; amount: bigint; readyAt: bigint; txHash?: `0x${string}` }): Promise<void>;
  /** Takes, in one statement, withdrawals due at `chainNowSeconds` (the latest block's time) that no instance holds, for `claimMs`. */
  claimDueWithdrawals(chainNowSeconds: bigint, limit: number, claimMs: number): Promise<(ChannelIdentity & ChannelState)[]>;
  /** A claimed step did not happen: an initiation opens the channel again; an initiated withdrawal waits for the next run. */
  withdrawalReleased(channelId: `0x${string}`): Promise<void>;
  /** A refund settled on chain: record it, release what the deposit's reservation still holds, close the channel. */
  refunded(input: { channelId: `0x${string}`; amount: bigint; txHash: `0x${string}` }): Promise<void>;
  /** Reads for the history page and tests. */
  get(channelId: `0x${string}`): Promise<(ChannelIdentity & ChannelState) | undefined>;
  ofPayer(payer: `0x${string}`, limit: number): Promise<(ChannelIdentity & ChannelState)[]>;
}

/** A lease or a deposit's call was taken over by another instance (its lease expired): nothing of it was recorded. */
export class ChannelLeaseLostError extends Error {
  constructor(channelId: string, what: string) {
    super(`channel ${channelId}: the lease was lost before ${what}; another call holds the channel now`);
    this.name = "ChannelLeaseLostError";
  }
}
