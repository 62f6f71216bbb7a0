import "server-only";
/**
 * A grant's float: what its payer account holds between payments (an `upto` remainder, a pull
 * whose payment then failed), the user's money still. While the grant is active the float pays
 * the next payment; once it ended, `returnEndedFloat` gives it back to the wallet. That is the
 * one path that revoke, the end of a turn and the reconciler's sweep all take, under a claim in
 * the grant store, so of two instances (or a revoke and a sweep) only one sends a return.
 */
import { randomUUID } from "node:crypto";
import type { Hex } from "viem";
import type { GrantFunds } from "./grant-funds";
import { floatReturnable, type GrantRecord, type GrantStore } from "./grants";

/**
 * How long a claim holds when its holder never releases it (a crashed process): more than a
 * return takes (simulate, send, a receipt within 30 s, a resend when another instance took the
 * relayer's nonce). A finished return releases it at once.
 */
export const FLOAT_CLAIM_MS = 5 * 60_000;

/**
 * `kept`: the grant is active or replaced, so its float stays for the next payment.
 * `claimed-elsewhere`: another caller is returning it now, or it was swept already.
 * `returned`: what went back (0 when nothing was idle), and whether the grant is now swept.
 */
export type FloatReturn = { state: "kept" | "claimed-elsewhere" } | { state: "returned"; returned: bigint; swept: boolean };

export type FloatOptions = {
  grants: Pick<GrantStore, "get" | "claimFloat" | "releaseFloat">;
  funds: Pick<GrantFunds, "balanceOf" | "sweep">;
  /** What the ledger holds reserved for a payer now (its payments in flight), on every instance. */
  reservedFor(payer: `0x${string}`): Promise<bigint>;
  /** The instance's clock: only a cheap first look, the claim's own clock decides. */
  now: () => number;
  /** A test's clock for whether the grant ended; unset, the store's own clock (the database's) decides. */
  storeNow?: () => number;
};

export async function returnEndedFloat(options: FloatOptions, grant: GrantRecord, payer: { key: Hex; address: `0x${string}` }): Promise<FloatReturn> {
  const current = await options.grants.get(grant.id);
  if (!current || !floatReturnable(current, options.now())) return { state: "kept" };
  const holder = randomUUID();
  // The instance's clock may run ahead of the database's: the claim itself takes only a grant
  // ended on the store's clock, so a float another instance may still pay from is never returned.
  const claim = await options.grants.claimFloat(current.id, FLOAT_CLAIM_MS, holder, options.storeNow?.());
  if (claim === "kept") return { state: "kept" };
  if (claim === "held") return { state: "claimed-elsewhere" };
  let returned = 0n;
  let swept = false;
  try {
    const float = await idleFloat(options, payer.address, 0n);
    if (float !== "in-flight" && float > 0n) {
      const moved = await options.funds.sweep(payer.key, current.walletAddress, float);
      if (moved.ok) returned = float;
    }
    // Done for good only when nothing of the account is in flight and it holds nothing: a
    // payment that pulled just before the grant ended may still leave float, found next run.
    swept = (await idleFloat(options, payer.address, 0n)) === 0n;
  } finally {
    await options.grants.releaseFloat(current.id, holder, { returned, swept });
  }
  return { state: "returned", returned, swept };
}

/**
 * The float a payment may use, or "in-flight": asked before and after the balance whether
 * another payment of this payer is in flight (a payment reserves before it pulls and settles
 * before it commits, so an unchanged "none in flight" on both sides means the balance holds no
 * money another payment is about to spend). `ownAmount` is the asking payment's own reservation.
 */
export async function idleFloat(options: Pick<FloatOptions, "funds" | "reservedFor">, payer: `0x${string}`, ownAmount: bigint): Promise<bigint | "in-flight"> {
  if ((await options.reservedFor(payer)) - ownAmount > 0n) return "in-flight";
  const balance = await options.funds.balanceOf(payer);
  return (await options.reservedFor(payer)) - ownAmount > 0n ? "in-flight" : balance;
}
