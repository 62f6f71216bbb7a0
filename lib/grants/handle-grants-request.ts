import "server-only";
/**
 * The grant endpoints: `POST /api/grants/prepare` (the typed data to sign), `POST /api/grants`
 * (the signed permit, checked and submitted: the grant and its token), `GET /api/grants` and
 * `DELETE /api/grants/{id}` (the caller's grants, and revoking one). Only a caller proven to
 * be the wallet lists or revokes its grants: the grant's token, or a sign-in session of that
 * wallet. Naming a wallet proves nothing.
 */
import { getAddress, recoverTypedDataAddress, type Hex } from "viem";
import { bearerToken } from "../auth/same-secret";
import { AppError, problemResponse } from "../errors";
import { formatUsdc } from "../money";
import { readBoundedBody } from "../net/read-bounded-json";
import { permitErrors, preparePermit, requestErrors, type GrantPolicy } from "./grant-bounds";
import type { GrantChain } from "./grant-chain";
import { grantTypedData, PERMIT2, readGrantTypedData, viemGrantTypedData } from "./grant-permit";
import { CreateGrantBody, PrepareGrantBody } from "./grant-requests";
import { toGrantView, type GrantSpending } from "./grant-view";
import { grantScope, type GrantRecord, type GrantStore } from "./grants";

export type GrantsDependencies = {
  grants: GrantStore;
  /** What a ledger scope holds (the store's `ledger.spentInScope`). */
  spentInScope(key: string): Promise<GrantSpending>;
  /** Absent when this deployment has no relayer (no key to submit permits with). */
  grantChain: { chain: GrantChain; policy: GrantPolicy } | undefined;
  /** The wallet of the request's sign-in session on this chain, if any. */
  sessionWallet(request: Request): `0x${string}` | undefined;
  /** Counts the request against the caller's rate limit; throws 429 when over. */
  admit(request: Request): Promise<void>;
  /** The account that pays under a wallet's grants; absent without a relayer. */
  payerAccountOf?(wallet: `0x${string}`): `0x${string}`;
  /** Gives an ended grant's float back to its wallet (grant-payer.ts); absent without a relayer. */
  returnFloat?(grant: GrantRecord): Promise<bigint>;
  now: () => number;
};

const BODY_LIMITS = { maxBytes: 16_384, timeoutMs: 10_000 };

export async function handlePrepareGrant(request: Request, getDependencies: () => GrantsDependencies): Promise<Response> {
  try {
    const deps = getDependencies();
    await deps.admit(request);
    const { chain, policy } = configured(deps);
    const body = await readBoundedBody(request, PrepareGrantBody, BODY_LIMITS);
    const errors = requestErrors(policy, body.amount, body.expiresInSeconds);
    if (errors.length > 0) throw new AppError("bad_request:body", { errors });
    const wallet = getAddress(body.walletAddress);
    const [chainNowSeconds, allowance, approved] = await onChain(() =>
      Promise.all([chain.nowSeconds(), chain.allowance(wallet), chain.usdcApprovedToPermit2(wallet)]),
    );
    const permit = preparePermit(policy, { amount: body.amount, expiresInSeconds: body.expiresInSeconds, nonce: allowance.nonce, chainNowSeconds });
    return Response.json(
      {
        typedData: grantTypedData(permit),
        expiresAt: new Date(Number(permit.expiration) * 1000).toISOString(),
        // Permit2 moves USDC only as far as the wallet approved it to, once, on the token.
        approval: approved >= body.amount ? { needed: false } : { needed: true, token: policy.usdc, spender: PERMIT2, amount: formatUsdc(body.amount) },
      },
      { headers: { "Cache-Control": "no-store" } },
    );
  } catch (error) {
    return problemResponse(error);
  }
}

export async function handleCreateGrant(request: Request, getDependencies: () => GrantsDependencies): Promise<Response> {
  try {
    const deps = getDependencies();
    await deps.admit(request);
    const { chain, policy } = configured(deps);
    const body = await readBoundedBody(request, CreateGrantBody, BODY_LIMITS);
    const read = readGrantTypedData(body.typedData);
    if (!read)
      throw new AppError("bad_request:body", { errors: [{ path: "typedData", message: "must be the typed data of POST /api/grants/prepare, as given" }] });
    const { permit } = read;
    const signature = body.signature as Hex;
    const owner = body.walletAddress
      ? getAddress(body.walletAddress)
      : await recoverTypedDataAddress({ ...viemGrantTypedData(permit), signature }).catch(() => undefined);
    if (!owner || !(await onChain(() => chain.isSignedBy(owner, permit, signature)))) {
      throw new AppError("bad_request:body", { errors: [{ path: "signature", message: "is not the wallet's signature of this typed data" }] });
    }
    const [nowSeconds, allowance, approved] = await onChain(() =>
      Promise.all([chain.nowSeconds(), chain.allowance(owner), chain.usdcApprovedToPermit2(owner)]),
    );
    const verdict = permitErrors(permit, read.verifyingContract, policy, { nowSeconds, nonce: allowance.nonce });
    if (verdict.replayed) throw new AppError("conflict:grant_used");
    if (verdict.errors.length > 0) throw new AppError("bad_request:body", { errors: verdict.errors });
    if (approved < permit.amount) {
      throw new AppError("bad_request:body", {
        errors: [{ path: "approval", message: `the wallet has not approved Permit2 for this much USDC: approve Permit2 (${PERMIT2}) on the token first` }],
      });
    }
    const submitted = await onChain(() => chain.submitPermit(owner, permit, signature));
    if (!submitted.ok) {
      if (submitted.reason === "used") throw new AppError("conflict:grant_used", { details: submitted.detail });
      if (submitted.reason === "reverted") throw new AppError("unavailable:chain", { details: submitted.detail, retryAfterSeconds: 5 });
      throw new AppError("bad_request:body", {
        details: submitted.detail,
        errors: [{ path: submitted.reason === "expired" ? "typedData.message.sigDeadline" : "signature", message: submitted.detail }],
      });
    }
    const created = await deps.grants.create({
      walletAddress: owner,
      amount: permit.amount,
      expiresAt: Number(permit.expiration) * 1000,
      nonce: permit.nonce,
      permitTransaction: submitted.transaction,
    });
    if (created === "duplicate") throw new AppError("conflict:grant_used");
    const view = toGrantView(created.grant, { settled: 0n, reserved: 0n }, deps.now());
    return Response.json({ grant: view, token: created.token }, { status: 201, headers: { "Cache-Control": "no-store", Location: `/api/grants/${view.id}` } });
  } catch (error) {
    return problemResponse(error);
  }
}

export async function handleListGrants(request: Request, getDependencies: () => GrantsDependencies): Promise<Response> {
  try {
    const deps = getDependencies();
    await deps.admit(request);
    const wallet = await provenWallet(request, deps);
    const grants = await deps.grants.list(wallet);
    const views = await Promise.all(grants.map((grant) => viewOf(grant, deps)));
    return Response.json({ walletAddress: wallet, grants: views }, { headers: { "Cache-Control": "no-store", Vary: "Cookie, Authorization" } });
  } catch (error) {
    return problemResponse(error);
  }
}

export async function handleRevokeGrant(request: Request, id: string, getDependencies: () => GrantsDependencies): Promise<Response> {
  try {
    const deps = getDependencies();
    await deps.admit(request);
    const wallet = await provenWallet(request, deps);
    // Another wallet's grant is "not found": a caller learns nothing about grants not theirs.
    if ((await deps.grants.revoke(id, wallet)) === "not-found") throw new AppError("not_found");
    const grant = await deps.grants.get(id);
    if (!grant) throw new AppError("not_found");
    // What the payer key held for this wallet (an upto remainder, a failed payment's pull) goes back now.
    const returned = (await deps.returnFloat?.(grant).catch(() => 0n)) ?? 0n;
    const after = (await deps.grants.get(id)) ?? grant;
    return Response.json({ grant: await viewOf(after, deps), floatReturned: formatUsdc(returned) }, { headers: { "Cache-Control": "no-store" } });
  } catch (error) {
    return problemResponse(error);
  }
}

/** The wallet the caller proved: a grant token's wallet, else the sign-in session's. */
async function provenWallet(request: Request, deps: GrantsDependencies): Promise<`0x${string}`> {
  const challenge = { headers: { "WWW-Authenticate": 'Bearer realm="grants", SIWE realm="grants"' } };
  if (request.headers.has("authorization")) {
    // A credential that is presented is judged on its own: a wrong token never falls back to the cookie.
    const checked = await deps.grants.check(bearerToken(request) ?? "");
    if (!checked.ok) throw new AppError("unauthorized", { ...challenge, message: "The grant token is not valid." });
    return checked.grant.walletAddress;
  }
  const wallet = deps.sessionWallet(request);
  if (!wallet) throw new AppError("unauthorized", { ...challenge, message: "Send the grant's token, or sign in with the wallet." });
  return wallet;
}

async function viewOf(grant: GrantRecord, deps: GrantsDependencies) {
  return toGrantView(grant, await deps.spentInScope(grantScope(grant.id)), deps.now(), deps.payerAccountOf?.(grant.walletAddress));
}

function configured(deps: GrantsDependencies): NonNullable<GrantsDependencies["grantChain"]> {
  if (!deps.grantChain)
    throw new AppError("unavailable:not_configured", { message: "Grants need a relayer: set GRANT_RELAYER_PRIVATE_KEY (or AGENT_PRIVATE_KEY)." });
  return deps.grantChain;
}

async function onChain<T>(read: () => Promise<T>): Promise<T> {
  try {
    return await read();
  } catch (error) {
    if (AppError.isInstance(error)) throw error;
    throw new AppError("unavailable:chain", { cause: error, details: error instanceof Error ? error.message : String(error), retryAfterSeconds: 5 });
  }
}
