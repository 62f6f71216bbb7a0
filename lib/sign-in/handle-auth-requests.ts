import "server-only";
/**
 * The sign-in routes: `GET /api/auth/nonce` (a fresh nonce, bound to this browser by a cookie),
 * `POST /api/auth/siwe` `{ message, signature }` (checks the Sign-In with Ethereum message and
 * sets the session cookie), `GET /api/auth/session` (who is signed in) and
 * `DELETE /api/auth/session` (sign out).
 */
import { z } from "zod";
import { readBoundedJson } from "../net/read-bounded-json";
import { AppError, problemResponse } from "../errors";
import type { AuthDependencies } from "./auth-dependencies";
import { cookiesSecure, signInSite } from "../auth/request-site";
import { clientKeyOf } from "../doors/client-key";
import { enforceRateLimit, type RateLimitOutcome } from "../doors/rate-limit";
import { clearedSessionCookie, sessionCookie, sessionOf, SESSION_TTL_MS } from "../auth/session-cookie";
import { sessionSecretOf } from "../auth/session-secret";
import { claimNonce, clearedNonceCookie, issueNonce, nonceOf } from "../auth/siwe-nonce";
import { SIWE_CHALLENGE, verifySiweSignIn } from "../auth/verify-siwe";

const NO_STORE = { "Cache-Control": "no-store" };

const SignInBody = z.object({
  message: z.string().min(1).max(4_096),
  signature: z
    .string()
    .regex(/^0x[0-9a-fA-F]+$/, "expected a 0x-prefixed hex signature")
    .max(2_000),
});

export async function handleNonceRequest(request: Request, getDependencies: () => AuthDependencies): Promise<Response> {
  try {
    const deps = getDependencies();
    const limited = await limitSignIn(request, deps);
    const now = deps.now();
    const issued = issueNonce(sessionSecretOf(deps.env), { secure: cookiesSecure(deps.env.APP_URL, request), now });
    return Response.json(
      { nonce: issued.nonce, expiresAt: new Date(issued.expiresAt).toISOString() },
      { headers: { ...NO_STORE, ...limited.headers, "Set-Cookie": issued.cookie } },
    );
  } catch (error) {
    return problemResponse(error);
  }
}

export async function handleSignInRequest(request: Request, getDependencies: () => AuthDependencies): Promise<Response> {
  try {
    const deps = getDependencies();
    const limited = await limitSignIn(request, deps);
    const secret = sessionSecretOf(deps.env);
    const now = deps.now();
    const parsed = SignInBody.safeParse(await readBoundedJson(request, { maxBytes: 8_192, timeoutMs: 10_000 }));
    if (!parsed.success) {
      throw new AppError("bad_request:body", { errors: parsed.error.issues.map((issue) => ({ path: issue.path.join("."), message: issue.message })) });
    }
    const site = signInSite(deps.env.APP_URL, request);
    if (!site) {
      throw new AppError("unauthorized", {
        message: "This app signs people in only at its configured address (APP_URL).",
        headers: { "WWW-Authenticate": SIWE_CHALLENGE },
      });
    }
    const signIn = await verifySiweSignIn(parsed.data, {
      domain: site.domain,
      origin: site.origin,
      chainId: deps.network.chainId,
      nonce: nonceOf(request, secret, now),
      now,
    });
    // Claimed only after the signature checked out, so only a wallet holder can write to the store.
    if (!(await claimNonce(deps.store.idempotency, signIn.nonce))) {
      throw new AppError("unauthorized", {
        message: "This sign-in message was used already. Start the sign-in again.",
        headers: { "WWW-Authenticate": SIWE_CHALLENGE },
      });
    }
    const session = { address: signIn.address, chainId: signIn.chainId, issuedAt: now, expiresAt: now + SESSION_TTL_MS };
    const secure = cookiesSecure(deps.env.APP_URL, request);
    const headers = new Headers({ ...NO_STORE, ...limited.headers });
    headers.append("Set-Cookie", sessionCookie(session, secret, { secure, now }));
    headers.append("Set-Cookie", clearedNonceCookie({ secure }));
    return Response.json(sessionBody(session), { headers });
  } catch (error) {
    return problemResponse(error);
  }
}

export async function handleSessionRequest(request: Request, getDependencies: () => AuthDependencies): Promise<Response> {
  try {
    const deps = getDependencies();
    const session = sessionOf(request, sessionSecretOf(deps.env), deps.now());
    return Response.json(session ? sessionBody(session) : { signedIn: false }, { headers: NO_STORE });
  } catch (error) {
    return problemResponse(error);
  }
}

/** Signing out only forgets the cookie in this browser: the token itself stays valid until it expires (no session table). */
export function handleSignOutRequest(request: Request): Response {
  return new Response(null, { status: 204, headers: { ...NO_STORE, "Set-Cookie": clearedSessionCookie({ secure: cookiesSecure(undefined, request) }) } });
}

/**
 * Sign-in attempts per client address: each costs a signature check, and each success opens a
 * session, so a script cannot mint sessions (or try nonces) as fast as it can send.
 */
function limitSignIn(request: Request, deps: AuthDependencies): Promise<RateLimitOutcome> {
  const key = `sign-in:${clientKeyOf(request, deps.env)}`;
  return enforceRateLimit(deps, [key], undefined, deps.env.SIGN_IN_RATE_LIMIT_REQUESTS);
}

function sessionBody(session: { address: string; chainId: number; issuedAt: number; expiresAt: number }) {
  return {
    signedIn: true,
    address: session.address,
    chainId: session.chainId,
    issuedAt: new Date(session.issuedAt).toISOString(),
    expiresAt: new Date(session.expiresAt).toISOString(),
  };
}
