/**
 * The shared store behind budgets, idempotency and rate limits: one interface, two
 * implementations (in-process memory for one instance, Redis for many; see create-store.ts).
 * Every implementation must pass the same contract suite (store-contract.ts).
 */
import type { IdempotencyRecord } from "./idempotency-record";
import type { PaymentJournal } from "../journal/payment-journal";
import type { ApiKeyStore } from "../access/api-keys";
import type { EvidenceStore } from "../evidence/evidence-store";
import type { GrantStore } from "../grants/grants";
import type { ChannelLedger } from "../channels/channel-ledger";

/** Options shared by ledger calls; `now` (epoch milliseconds) exists for tests of the window. */
export type ClockOptions = { now?: number };

export type ReserveInput = {
  /** The paying wallet address; compared case-insensitively. */
  payer: string;
  /** Unique per payment attempt, chosen by the caller; retries with the same id are idempotent. */
  reservationId: string;
  /** Base units. */
  amount: bigint;
  /** Base units; the payer's effective daily limit for this request. */
  dailyLimit: bigint;
  /**
   * A named caller's own daily budget this payment also counts against (the agent wallet
   * paying for an API key or a signed-in wallet): both limits are checked and the reservation
   * made atomically, or none is.
   */
  scope?: { key: string; dailyLimit: bigint };
  /**
   * A daily budget the scope shares with other scopes (every wallet signed in under open
   * access), checked and reserved in the same atomic step. Only with a scope.
   */
  pool?: { key: string; dailyLimit: bigint };
  now?: number;
};

export type ReserveResult =
  | { ok: true }
  | {
      ok: false;
      /** Whose limit would be passed: the payer's, the scope's (the named caller's budget) or the pool's. */
      reason: "daily" | "scope" | "pool";
      /** Settled spending in the rolling window (of the payer, or of the scope), base units. */
      spent: bigint;
      /** Outstanding reservations, base units. */
      reserved: bigint;
      dailyLimit: bigint;
    };

export type SettledEntry = {
  reservationId: string;
  amount: bigint;
  txHash: string;
  /** When the spending was committed, epoch milliseconds. */
  at: number;
};

export type CommitResult =
  | { status: "committed" | "already-committed"; entry: SettledEntry }
  /** No such reservation: never made, released, or expired. Nothing was recorded. */
  | { status: "not-found" };

export type ReleaseResult = { status: "released" | "not-found" | "already-committed" };

export type DailySpending = { settled: bigint; reserved: bigint };

/** How a reservation becomes spending: the settlement's hash and, for a metered payment, what it cost. */
export type CommitOptions = {
  txHash: string;
  /**
   * Base units actually settled, at most the reserved amount: a payment whose signature allows
   * up to a ceiling (x402 `upto`) reserves the ceiling and commits what the chain shows it
   * moved; the rest of the reservation is freed in the same atomic step. Absent: the reserved
   * amount. More than the reserved amount is a bug (RangeError) and changes nothing.
   */
  amount?: bigint;
  now?: number;
};

/**
 * The daily budget per payer. Flow for one payment: `reserve` before anything is signed;
 * then `commit` once the payment settled (or may have: a pending settlement is committed too),
 * at its settled amount when that is less than reserved, or `release` only when it is certain
 * nothing was spent.
 */
export interface SpendingLedger {
  /**
   * Atomically reserves `amount` if settled + reserved + amount <= dailyLimit for the payer.
   * Repeating a successful call with the same reservationId and amount returns ok without
   * reserving twice. If this call rejects (store unavailable) the reservation may or may not
   * exist; nothing has been signed, so the caller may `release` it.
   */
  reserve(input: ReserveInput): Promise<ReserveResult>;
  /**
   * Turns a reservation into settled spending timestamped `now`, at `amount` when given (the
   * rest is freed at once). Idempotent: a repeat returns the first commit, whatever it passes.
   * After a commit at a smaller amount the reservation holds that amount, so repeating its
   * `reserve` with the original amount is refused as a different amount.
   */
  commit(reservationId: string, options: CommitOptions): Promise<CommitResult>;
  /** Drops a reservation. Idempotent; a no-op after commit. */
  release(reservationId: string): Promise<ReleaseResult>;
  /** Settled spending in the rolling window ending at `now`, and outstanding reservations. */
  spentToday(payer: string, options?: ClockOptions): Promise<DailySpending>;
  /** Settled entries in the rolling window ending at `now`, oldest first (for reconciliation). */
  entries(payer: string, options?: ClockOptions): Promise<SettledEntry[]>;
  /** A scope's (a named caller's) settled spending in the rolling window, and its outstanding reservations. */
  spentInScope(key: string, options?: ClockOptions): Promise<DailySpending>;
}

export type ClaimResult =
  | { claimed: true }
  /** The first claimant finished: its record. */
  | { claimed: false; record: IdempotencyRecord }
  /**
   * The first claimant is still working, or died holding the claim: `record` is null. How long
   * until the claim lapses (a dead holder's claim frees itself then; a live one finishes
   * sooner), on the store's clock, and who holds it, when the claimant said.
   */
  | { claimed: false; record: null; lapsesInMs: number; holder?: string };

/** Remembers the outcome of a request by its idempotency key, so a retry is not paid twice. */
export interface IdempotencyStore {
  /**
   * Atomically claims `key` for `ttlSeconds` if no one holds it (SET NX semantics). `holder`
   * (which instance and request) is kept with the claim and shown to whoever is refused.
   */
  claim(key: string, ttlSeconds: number, holder?: string): Promise<ClaimResult>;
  /** Stores the final record for `key`, replacing the claim, for `ttlSeconds`. */
  complete(key: string, record: IdempotencyRecord, ttlSeconds: number): Promise<void>;
  /** The completed record, or null when the key is unknown, expired or still being worked on. */
  get(key: string): Promise<IdempotencyRecord | null>;
  /**
   * Drops a claim that never completed (the claimant failed before anything was spent), so a
   * retry can proceed at once. A completed record is kept. With `holder`, only that holder's
   * claim is dropped (a late release cannot free someone else's newer claim).
   */
  release(key: string, holder?: string): Promise<void>;
}

export type RateLimitOptions = { limit: number; windowSeconds: number; now?: number };

export type RateLimitResult = {
  allowed: boolean;
  limit: number;
  /** Hits left in this window; 0 once the limit is reached. */
  remaining: number;
  /** Seconds until the window resets: 1..windowSeconds. */
  resetSeconds: number;
};

/** Fixed-window request counting per key (for example per client address). */
export interface RateLimiter {
  hit(key: string, options: RateLimitOptions): Promise<RateLimitResult>;
}

export type StoreKind = "memory" | "redis" | "database";

export type Store = {
  kind: StoreKind;
  ledger: SpendingLedger;
  idempotency: IdempotencyStore;
  /**
   * Claims that matter only while a request runs (a concurrent duplicate of it is refused).
   * Where every instance shares them (Redis, a PostgreSQL server) they live in the shared store;
   * with the embedded database, which one process holds at a time, in that process's memory:
   * nothing to write per request, and after a crash a retry is not refused by a claim of the
   * dead process.
   */
  inFlight: IdempotencyStore;
  rateLimiter: RateLimiter;
  /** The permanent record of every payment attempt (always in the database outside tests). */
  journal: PaymentJournal;
  /** Evidence about listings (probes, and outcomes read from the journal): shared where the journal is. */
  evidence: EvidenceStore;
  /** The operator's API keys (lib/access): in the database when there is one, else in memory. */
  apiKeys: ApiKeyStore;
  /** Budgets users signed once (lib/grants): in the database when there is one, else in memory. */
  grants: GrantStore;
  /**
   * x402 batch-settlement channels (lib/channels): on the database store only, where one
   * statement can serialize a channel across instances. Absent, purchases do not choose channel offers.
   */
  channels?: ChannelLedger;
  /** Resolves when the store answers; rejects with AppError "unavailable:store" otherwise. */
  ping(): Promise<void>;
  /** Releases connections; the store must not be used afterwards. */
  close(): Promise<void>;
};
