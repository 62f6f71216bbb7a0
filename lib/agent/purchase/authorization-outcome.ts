/**
 * What the chain says about one signed authorization: used (with the transaction when it can
 * be found), proven unusable (expired and unused), or still open. Shared by the purchase's own
 * watch and by the reconciler, so both decide by the same rule. Two kinds: an EIP-3009
 * authorization (`exact`), read from the token's `authorizationState`; and an `upto` Permit2
 * permit, read from Permit2's nonce bitmap, whose settlement is found among the payer's
 * transfers to the payee with the amount it moved.
 */
import type { ChainReader } from "../../x402/chain-reader";
import { EXPIRY_MARGIN_SECONDS } from "./authorization-window";
import type { AuthorizationOutcome, AuthorizationRef } from "./schemes/payment-scheme";
import { schemeOfAuthorization } from "./schemes/payment-schemes";

export type { AuthorizationOutcome, AuthorizationRef } from "./schemes/payment-scheme";

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
  // Each scheme reads its own kind of signature (schemes/): a token's EIP-3009 state, or Permit2's nonce bitmap.
  return schemeOfAuthorization(authorization).readAuthorization(chain, authorization, chainPast);
}
