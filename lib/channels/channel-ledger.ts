/**
 * The channel ledger: the database's record of each x402 batch-settlement channel the agent
 * pays through, and the one place that serializes a channel's calls across instances (a lease)
 * and counts its vouchers and deposit against the budgets. The interface between the paying side
 * (lib/agent/purchase/channels/) and its database implementation.
 */
/** The budgets one payment counts against, as reserve-budget.ts gives them to the ledger. */
export type ChannelBudgets = {
  payer: `0x${string}`; // the paying wallet (lower-cased inside)
  payerLimit: bigint; // the payer's daily cap
  scope?: { key: string; dailyLimit: bigint };
  pool?: { key: string; dailyLimit: bigint };
};

/** What identifies a channel; `config` is @x402/evm's ChannelConfig as JSON (bigints as strings). */
export type ChannelIdentity = {
  channelId: `0x${string}`; // computeChannelId(config, network), lower-case hex
  payer: `0x${string}`;
  receiver: `0x${string}`; // the service's payTo
  token: `0x${string}`;
  network: string; // CAIP-2
  serviceUrl: string; // an URL of the service (for refunds and the history)
  config: Record<string, string | number>;
};

export type ChannelState = {
  channelId: `0x${string}`;
  deposited: bigint; // total deposited and confirmed
  charged: bigint; // the server's charged cumulative amount, as last acknowledged
  signedMax: bigint; // the highest cumulative amount we signed
  signature?: `0x${string}`; // our voucher signature for signedMax
  totalClaimed: bigint; // what the chain shows claimed (from the server's answers)
  state: "opening" | "open" | "refunding" | "closed";
};

export type AcquireResult =
  /** The lease is ours: sign a voucher for `cumulative` (= charged + price). The price is reserved. */
  | { status: "voucher"; lease: string; channel: ChannelState; cumulative: bigint }
  /**
   * The lease is ours, but the channel is unknown (state "opening") or its deposit cannot cover
   * charged + price: deposit first. `room` is the least remaining budget across payer, scope and
   * pool (what a deposit may be at most). Nothing is reserved yet.
   */
  | { status: "deposit-needed"; lease: string; channel: ChannelState | undefined; room: bigint }
  /** Another call holds the channel; try again after `retryInMs` (its lease ends by then at the latest). */
  | { status: "busy"; retryInMs: number }
  /** A budget refuses the price: which one and its figures, as ReserveResult says. */
  | { status: "refused"; reason: "daily" | "scope" | "pool"; spent: bigint; reserved: bigint; dailyLimit: bigint };

export interface ChannelLedger {
  /**
   * ONE statement: lock the channel row (create it in state "opening" when unknown), refuse if a
   * live lease is held (busy), else take the lease (`leaseMs`, on the database's clock) and, when
   * the deposit covers charged + price, reserve the price in the budgets under `reservationId`
   * (see "Budgets" below) and return the next cumulative amount.
   */
  acquire(input: { identity: ChannelIdentity; price: bigint; budgets: ChannelBudgets; reservationId: string; leaseMs: number }): Promise<AcquireResult>;

  /** Under the lease: reserve a deposit of `amount` in the budgets (refused like a payment when it no longer fits). */
  reserveDeposit(input: {
    channelId: `0x${string}`;
    lease: string;
    amount: bigint;
    budgets: ChannelBudgets;
    reservationId: string;
  }): Promise<{ ok: true } | Extract<AcquireResult, { status: "refused" }>>;

  /**
   * ONE statement, under the lease: the call was answered. Records what the server says
   * (`charged`: its charged cumulative amount now; `chargedAmount`: this call's charge),
   * our signed voucher (`signedMax`, `signature`), a confirmed deposit (`deposited`: the
   * new total, with the deposit's transaction), commits the voucher's reservation at
   * `chargedAmount` (the rest of the price goes back to the deposit's reservation), and releases
   * the lease. Also writes the voucher's journal facts (see "Journal" below).
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
   * Under the lease: the call ended without a charge we know of (refused, failed before sending,
   * or timed out). `spent: "nothing"` releases the voucher's (and an unconfirmed deposit's)
   * reservation; `spent: "unknown"` keeps them reserved (a later corrective 402 or the
   * reconciler decides). Releases the lease either way.
   */
  abandon(input: {
    channelId: `0x${string}`;
    lease: string;
    reservationId: string;
    depositReservationId?: string;
    spent: "nothing" | "unknown";
  }): Promise<void>;

  /** Under the lease: the server's corrective 402 proved its state; adopt it (charged, signedMax, signature, deposited, totalClaimed). */
  resync(input: { channelId: `0x${string}`; lease: string; channel: Omit<ChannelState, "channelId" | "state"> }): Promise<void>;

  /** Channels with no call for `idleMs` (database clock), open, no live lease: candidates for a refund. */
  idle(idleMs: number, limit: number): Promise<(ChannelIdentity & ChannelState)[]>;
  /** A refund settled on chain: record it, release what the deposit's reservation still holds, close the channel. */
  refunded(input: { channelId: `0x${string}`; amount: bigint; txHash: `0x${string}` }): Promise<void>;
  /** Reads for the history page and tests. */
  get(channelId: `0x${string}`): Promise<(ChannelIdentity & ChannelState) | undefined>;
  ofPayer(payer: `0x${string}`, limit: number): Promise<(ChannelIdentity & ChannelState)[]>;
}
