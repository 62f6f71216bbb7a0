/**
 * Grants: budgets a user signed once (a Permit2 allowance to the agent's relayer), as the
 * server records them. The chain holds the allowance; a grant row holds who may spend it (the
 * holder of its token, or a session of its wallet), until when, and whether the user revoked
 * it here. What a grant has spent is a budget scope of the spending ledger (`grantScope`), so a
 * grant is reserved in the same atomic step as the user's other budgets, on every instance.
 */
import { secretTokens } from "../auth/secret-token";

/** Times are epoch milliseconds; amounts USDC base units. */
export type GrantRecord = {
  id: string;
  walletAddress: `0x${string}`;
  amount: bigint;
  /** The permit's expiration (the chain's time), in epoch milliseconds. */
  expiresAt: number;
  /** The Permit2 nonce the permit used: one grant per nonce and wallet. */
  nonce: bigint;
  /** The relayer's `Permit2.permit` transaction. */
  permitTransaction: `0x${string}`;
  createdAt: number;
  revokedAt: number | null;
  /**
   * A later grant of the same wallet: Permit2 keeps one allowance per owner, token and spender,
   * so a new permit replaces the old amount and expiry on chain, and the old grant ends.
   */
  replacedBy: string | null;
  /** What went back to the wallet from the payer account once the grant ended (grant-float.ts). */
  floatReturned: bigint;
  /** When the grant was found ended with nothing in flight and nothing left on its payer account. */
  sweptAt: number | null;
};

export type GrantState = "active" | "revoked" | "replaced" | "expired";

export type NewGrant = Pick<GrantRecord, "walletAddress" | "amount" | "expiresAt" | "nonce" | "permitTransaction"> & { now?: number };

/** What `claimFloat` answered (GrantStore). */
export type FloatClaim = "claimed" | "kept" | "held";

export type GrantCheck = { ok: true; grant: GrantRecord } | { ok: false; reason: "malformed" | "unknown" };

export interface GrantStore {
  /**
   * Records a submitted permit and ends the wallet's earlier grants (`replacedBy`), in one
   * step. The token is returned once and never stored. "duplicate" when this wallet's nonce is
   * already a grant (the same permit twice).
   */
  create(grant: NewGrant): Promise<{ grant: GrantRecord; token: string } | "duplicate">;
  get(id: string): Promise<GrantRecord | undefined>;
  /** The wallet's grants, newest first. */
  list(walletAddress: `0x${string}`): Promise<GrantRecord[]>;
  /** Only the wallet's own grant; the first revocation time is the one kept. */
  revoke(id: string, walletAddress: `0x${string}`, now?: number): Promise<"revoked" | "already-revoked" | "not-found">;
  /** The grant a token names, if the token is its own (constant time, like API keys). */
  check(token: string): Promise<GrantCheck>;
  /**
   * Grants whose float the reconciler should return: each wallet's newest grant (a replaced
   * grant's float is its successor's), ended at `now` (revoked, or expired by the database's
   * clock unless a test passes one), not yet swept and not claimed now; at most `limit`, the
   * earliest expiry first.
   */
  endedUnswept(limit: number, now?: number): Promise<GrantRecord[]>;
  /**
   * Claims returning the grant's float for `holdMs` (the store's clock) under `holder`, only if
   * the grant has ended at `now` (revoked, or expired by the database's clock unless a test
   * passes one) and was not replaced: the store decides that, in the same step as the claim, so
   * an instance whose clock runs ahead never takes the float of a grant still paying. `claimed`
   * for one caller at a time, on every instance; `kept` when the grant is active, replaced or
   * unknown (its float stays); `held` while another holds the claim or once it is swept.
   */
  claimFloat(id: string, holdMs: number, holder: string, now?: number): Promise<FloatClaim>;
  /**
   * Ends `holder`'s claim: adds `returned` to what went back, and marks the grant swept when
   * its payer account was found empty with nothing in flight. A claim that lapsed and was taken
   * by another holder stays theirs; the amount is added either way.
   */
  releaseFloat(id: string, holder: string, outcome: { returned: bigint; swept: boolean }): Promise<void>;
}

/** A grant token's prefix: told apart from an API key (`x402k_`) before either is looked up. */
export const GRANT_TOKEN_PREFIX = "x402g_";

export const grantTokens = secretTokens(GRANT_TOKEN_PREFIX);

/** A grant id: 16 hex digits, as in its token. */
export function isGrantId(id: string): boolean {
  return /^[0-9a-f]{16}$/.test(id);
}

/** The ledger scope a grant's spending is counted in. */
export function grantScope(id: string): string {
  return `grant:${id}`;
}

/** A grant's state at `now` (epoch milliseconds). */
export function grantState(grant: GrantRecord, now: number): GrantState {
  if (grant.revokedAt !== null) return "revoked";
  if (grant.replacedBy !== null) return "replaced";
  return now >= grant.expiresAt ? "expired" : "active";
}

/**
 * Whether the grant's float goes back to its wallet now: it ended (revoked, expired) and was not
 * replaced. While a grant is active its float pays the next payment; once a newer grant of the
 * wallet replaced it, the float (on the same payer account) is the newer grant's.
 */
export function floatReturnable(grant: GrantRecord, now: number): boolean {
  return grant.replacedBy === null && grantState(grant, now) !== "active";
}

export function newestFirst(left: GrantRecord, right: GrantRecord): number {
  return right.createdAt - left.createdAt || (right.id > left.id ? 1 : right.id < left.id ? -1 : 0);
}
