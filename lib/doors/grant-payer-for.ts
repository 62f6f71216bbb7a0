import "server-only";
/**
 * Whether a request pays under a grant, and with which: only a caller proven to be the wallet
 * the request names may spend that wallet's grant. The proof is the grant's own token
 * (`Authorization: Bearer x402g_…`) or a sign-in session of that wallet; naming the wallet in
 * the body proves nothing, and such a request is asked for approval as before.
 *
 * A token is checked before the body is read (a bad one is 401 like a bad API key). A token
 * whose grant has ended, or that belongs to another wallet than the body names, is refused
 * (403): its holder asked to pay under it, and paying any other way would surprise them.
 */
import { grantTokenOf, WWW_AUTHENTICATE, type Caller } from "../access/caller";
import { AppError } from "../errors";
import type { GrantPayer } from "../grants/grant-payer";
import { grantState, type GrantRecord } from "../grants/grants";
import type { AppDependencies } from "./app-dependencies";

/**
 * The grant a request's bearer token names, checked, if it carries one.
 * @throws AppError 401 for a token that is not a grant's.
 */
export async function grantOfToken(request: Request, deps: Pick<AppDependencies, "store">): Promise<GrantRecord | undefined> {
  const token = grantTokenOf(request);
  if (token === undefined) return undefined;
  const checked = await deps.store.grants.check(token);
  if (checked.ok) return checked.grant;
  throw new AppError("unauthorized:bad_key", {
    message: "The bearer token is not a valid grant token.",
    headers: { "WWW-Authenticate": `${WWW_AUTHENTICATE}, error="invalid_token"` },
  });
}

/**
 * The payer for a request naming `walletAddress`: its grant's, when the caller proved the
 * wallet (the grant's token, or a session of that wallet with an active grant); else none.
 * @throws AppError 403 `forbidden:grant_other_wallet` or `forbidden:grant_ended` for a token that cannot pay here.
 */
export async function grantPayerFor(
  deps: Pick<AppDependencies, "store" | "grantPayer" | "now">,
  proof: { tokenGrant: GrantRecord | undefined; caller: Caller },
  walletAddress: `0x${string}` | undefined,
): Promise<GrantPayer | undefined> {
  const { tokenGrant, caller } = proof;
  if (tokenGrant) {
    if (walletAddress === undefined || tokenGrant.walletAddress.toLowerCase() !== walletAddress.toLowerCase()) {
      throw new AppError("forbidden:grant_other_wallet");
    }
    const state = grantState(tokenGrant, deps.now());
    if (state !== "active") throw new AppError("forbidden:grant_ended", { details: `the grant is ${state}` });
    return deps.grantPayer?.(tokenGrant);
  }
  if (walletAddress === undefined || caller.kind !== "account" || caller.address.toLowerCase() !== walletAddress.toLowerCase()) return undefined;
  const now = deps.now();
  const live = (await deps.store.grants.list(walletAddress)).find((grant) => grantState(grant, now) === "active");
  return live ? deps.grantPayer?.(live) : undefined;
}
