/**
 * Whether a chat request proved that its caller holds the wallet its body names. Anyone can put
 * any `walletAddress` in a body; only a signature by that wallet proves it: a `PAYMENT-SIGNATURE`
 * (lib/chat/verify-approval.ts) or a `SIGN-IN-WITH-X` (lib/chat/verify-sign-in.ts), which the
 * route verifies against `walletAddress` before the run starts and passes as `approved` or
 * `signedIn`; or the wallet's grant, proven by its token or a session (`grantPayer`).
 *
 * An unproven request journals nothing (agent-run.ts): the journal is what the wallet's history
 * shows its owner, and a stranger's request must not put rows there ("failed, 5 USDC to 0x…dEaD").
 * Nothing is lost by it: such a request can only quote the user's wallet, so its payment ends at
 * `awaiting-approval` or `failed` with nothing signed or reserved, and the signed request 2 of a
 * real approval journals the payment from its own `quoted` step on (the row is upserted by id).
 */
export type WalletClaim = {
  walletAddress: string | undefined;
  /** The verified payment signature of this request, if any. */
  approved?: object;
  /** The verified sign-in-with-x of this request, if any. */
  signedIn?: object;
  /** The grant the door found this caller proven to hold (its token, or a session of its wallet). */
  grantPayer?: object;
};

/** True when the request names no wallet, or a signature of this request proved it. */
export function walletProven(claim: WalletClaim): boolean {
  return claim.walletAddress === undefined || claim.approved !== undefined || claim.signedIn !== undefined || claim.grantPayer !== undefined;
}
