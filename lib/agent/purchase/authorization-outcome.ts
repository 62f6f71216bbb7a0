/**
 * What the chain says about one signed authorization: used (with the transaction when it can
 * be found), proven unusable (expired and unused), or still open. Shared by the purchase's own
 * watch and by the reconciler, so both decide by the same rule. Two kinds: an EIP-3009
 * authorization (`exact`), read from the token's `authorizationState`; and an `upto` Permit2
 * permit, read from Permit2's nonce bitmap, whose settlement is found among the payer's
 * transfers to the payee with the amount it moved.
 */
import type { ChainReader } from "../../x402/chain-reader";
import { permit2NonceOf } from "../../x402/upto-permit2";
import { EXPIRY_MARGIN_SECONDS } from "./authorization-window";

export type AuthorizationRef = {
  payer: `0x${string}`;
  nonce: `0x${string}`;
  /** EIP-3009's `validBefore`, or a permit's `deadline` (its last valid second; the margin covers the difference). */
  validBefore: bigint;
  /** An upto permit: its Permit2 nonce derives from `nonce`, and it pays only `payTo`. */
  upto?: { payTo: `0x${string}` };
};

export type AuthorizationOutcome =
  /**
   * The transfer happened; `txHash` is undefined while its transaction cannot be found. For an
   * upto permit, `amount` is what the found transaction moved (absent while it is not found).
   */
  | { state: "used"; txHash: `0x${string}` | undefined; amount?: bigint }
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

export async function readAuthorizationOutcome(
  chain: ChainReader,
  authorization: AuthorizationRef,
  now: () => number,
  expiryClock: ExpiryClock,
): Promise<AuthorizationOutcome> {
  const deadline = authorization.validBefore + BigInt(EXPIRY_MARGIN_SECONDS);
  // Both clocks are read before the state: a state read after the expiry instant proves more.
  // The instance's clock spares the block read while it says "not yet".
  const ownPast = BigInt(Math.floor(now() / 1000)) > deadline;
  const chainPast =
    ownPast && expiryClock === "chain"
      ? await chain.latestBlockTime().then(
          (seconds) => seconds > deadline,
          () => false,
        )
      : ownPast;
  if (authorization.upto) return readPermitOutcome(chain, authorization, authorization.upto.payTo, chainPast);
  const used = await chain.isAuthorizationUsed(authorization.payer, authorization.nonce).catch(() => undefined);
  if (used === true) {
    const txHash = await chain.findAuthorizationTransaction(authorization.payer, authorization.nonce).catch(() => undefined);
    return { state: "used", txHash };
  }
  if (used === false && chainPast) return { state: "expired-unused" };
  return { state: "open" };
}

/**
 * The same for an upto permit. Permit2 marks a nonce used in the settling transaction itself,
 * and logs nothing that names it: the transaction is found by its calldata among the payer's
 * recent transfers to the payee, and with it the amount that moved.
 */
async function readPermitOutcome(chain: ChainReader, authorization: AuthorizationRef, payTo: `0x${string}`, expired: boolean): Promise<AuthorizationOutcome> {
  const nonce = permit2NonceOf(authorization.nonce);
  const used = await chain.isPermit2NonceUsed(authorization.payer, nonce).catch(() => undefined);
  if (used === true) {
    const found = await chain.findPermitSettlement({ payer: authorization.payer, payTo, nonce }).catch(() => undefined);
    return found ? { state: "used", txHash: found.txHash, amount: found.amount } : { state: "used", txHash: undefined };
  }
  if (used === false && expired) return { state: "expired-unused" };
  return { state: "open" };
}
