import "server-only";
/**
 * Who may read whose payment history. A wallet's holder, once proven by Sign-In with Ethereum
 * (the session cookie), sees that wallet's history only. The operator, with
 * `Authorization: Bearer $ADMIN_TOKEN`, sees any wallet's (the agent wallet's by default).
 * Nobody else sees anything: payment histories say what a person bought, when and from whom.
 */
import { getAddress } from "viem";
import { sameSecret, bearerToken } from "../auth/same-secret";
import { sessionOf } from "../auth/session-cookie";
import { sessionSecretOf } from "../auth/session-secret";
import type { Env } from "../env";
import { AppError } from "../errors";

export type HistoryViewer = { kind: "operator" } | { kind: "wallet"; address: `0x${string}` };

/** Tells a client both ways in: sign in with its wallet, or the operator's token. */
export const HISTORY_CHALLENGE = 'SIWE realm="payments", Bearer realm="operator"';

function unauthorized(message?: string): AppError {
  return new AppError("unauthorized", { message, headers: { "WWW-Authenticate": HISTORY_CHALLENGE } });
}

/** @throws AppError "unauthorized" without a valid session or operator token. */
export function viewerOf(
  request: Request,
  options: { env: Pick<Env, "ADMIN_TOKEN" | "SESSION_SECRET" | "X402_NETWORK">; chainId: number; now: number },
): HistoryViewer {
  if (request.headers.has("authorization")) {
    // A credential that is presented is judged on its own: a wrong token never falls back to the cookie.
    const token = bearerToken(request);
    const adminToken = options.env.ADMIN_TOKEN;
    if (adminToken && token !== undefined && sameSecret(token, adminToken)) return { kind: "operator" };
    throw unauthorized("The operator token is not valid.");
  }
  const session = sessionOf(request, sessionSecretOf(options.env), options.now);
  if (!session) throw unauthorized("Sign in with your wallet to see its payments.");
  if (session.chainId !== options.chainId) throw unauthorized("Your sign-in was for another chain. Sign in again.");
  return { kind: "wallet", address: session.address };
}

/**
 * The wallet whose history is read: the one asked for, else the signed-in wallet, else (for the
 * operator) the agent wallet. A signed-in wallet may also read its grant account's history
 * (`payerAccount` in `GET /api/grants`): its payments under grants are that account's.
 *
 * @throws AppError "forbidden:not_your_wallet" when a signed-in wallet asks for another's.
 */
export function payerFor(
  viewer: HistoryViewer,
  requested: `0x${string}` | undefined,
  agentAddress: `0x${string}` | undefined,
  /** The account that pays under a wallet's grants (its payer key), which is that wallet's too. */
  grantAccountOf?: (wallet: `0x${string}`) => `0x${string}`,
): `0x${string}` {
  if (viewer.kind === "wallet") {
    if (!requested) return viewer.address;
    const asked = getAddress(requested);
    if (asked !== viewer.address && asked !== grantAccountOf?.(viewer.address)) throw new AppError("forbidden:not_your_wallet");
    return asked;
  }
  const payer = requested ?? agentAddress;
  if (!payer) throw new AppError("bad_request:query", { errors: [{ path: "payer", message: "required: this deployment has no agent wallet" }] });
  return getAddress(payer);
}
