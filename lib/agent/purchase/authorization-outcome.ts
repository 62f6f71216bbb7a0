/**
 * What the chain says about one signed authorization: used (with the transaction when it can
 * be found), proven unusable (expired and unused), or still open. Shared by the purchase's own
 * watch and by the reconciler, so both decide by the same rule.
 */
import type { ChainReader } from "../../x402/chain-reader";
import { EXPIRY_MARGIN_SECONDS } from "./authorization-window";

export type AuthorizationRef = { payer: `0x${string}`; nonce: `0x${string}`; validBefore: bigint };

export type AuthorizationOutcome =
  /** The transfer happened; `txHash` is undefined while its transaction cannot be found. */
  | { state: "used"; txHash: `0x${string}` | undefined }
  /** Past validBefore (and the margin) and still unused: it can never move money now. */
  | { state: "expired-unused" }
  /** It may still be used, or the chain could not be read. */
  | { state: "open" };

/**
 * Whose clock says an authorization has expired:
 * - "chain": the latest block's time, the clock the token contract enforces. The reconciler
 *   judges payments other instances signed, with clocks of their own, so it waits for the
 *   chain (on an idle chain that is up to one block interval more).
 * - "signer": the clock of the instance that signed it and set its `validBefore`, checked
 *   within the request; it must not cost the request a block interval it may not have.
 */
export type ExpiryClock = "chain" | "signer";

export async function readAuthorizationOutcome(chain: ChainReader, authorization: AuthorizationRef, now: () => number, expiryClock: ExpiryClock): Promise<AuthorizationOutcome> {
  const deadline = authorization.validBefore + BigInt(EXPIRY_MARGIN_SECONDS);
  // Both clocks are read before the state: a state read after the expiry instant proves more.
  // The instance's clock spares the block read while it says "not yet".
  const ownPast = BigInt(Math.floor(now() / 1000)) > deadline;
  const chainPast = ownPast && expiryClock === "chain" ? await chain.latestBlockTime().then((seconds) => seconds > deadline, () => false) : ownPast;
  const used = await chain.isAuthorizationUsed(authorization.payer, authorization.nonce).catch(() => undefined);
  if (used === true) {
    const txHash = await chain.findAuthorizationTransaction(authorization.payer, authorization.nonce).catch(() => undefined);
    return { state: "used", txHash };
  }
  if (used === false && chainPast) return { state: "expired-unused" };
  return { state: "open" };
}
