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

export async function readAuthorizationOutcome(chain: ChainReader, authorization: AuthorizationRef, now: () => number): Promise<AuthorizationOutcome> {
  // The clock is read before the chain: a state read after the expiry instant proves more.
  const checkedAtSeconds = BigInt(Math.floor(now() / 1000));
  const used = await chain.isAuthorizationUsed(authorization.payer, authorization.nonce).catch(() => undefined);
  if (used === true) {
    const txHash = await chain.findAuthorizationTransaction(authorization.payer, authorization.nonce).catch(() => undefined);
    return { state: "used", txHash };
  }
  if (used === false && checkedAtSeconds > authorization.validBefore + BigInt(EXPIRY_MARGIN_SECONDS)) return { state: "expired-unused" };
  return { state: "open" };
}
