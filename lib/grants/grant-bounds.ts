/**
 * What a grant's permit must say before the server submits it: this chain's Permit2, this
 * network's USDC, our relayer as the only spender, an amount within the operator's cap, an
 * expiry within a day, a signature still good for a while, and the wallet's current Permit2
 * nonce (an older nonce is a permit already used: a replay).
 */
import type { FieldError } from "../errors";
import { formatUsdc } from "../money";
import { PERMIT2, type GrantPermit } from "./grant-permit";

/**
 * The longest grant: one day. A grant's spending is counted as a budget scope over the
 * ledger's rolling 24-hour window, so a grant that lived longer would see its first payments
 * leave the window and be spent again (lib/grants/grant-bounds.test.ts ties the two).
 */
export const MAX_GRANT_SECONDS = 24 * 60 * 60;
/** The shortest: a grant that ends before a payment could finish is no use. */
export const MIN_GRANT_SECONDS = 60;
/** How long the user has to sign a prepared permit; Permit2 refuses it after this. */
export const SIGNING_WINDOW_SECONDS = 15 * 60;

export type GrantPolicy = {
  chainId: number;
  usdc: `0x${string}`;
  /** The agent's relayer: the only spender a grant may name. */
  relayer: `0x${string}`;
  /** The operator's cap on one grant, base units. */
  maxAmount: bigint;
};

/** The permit a prepare request asks for: the chain's time decides the expiry, not ours. */
export function preparePermit(policy: GrantPolicy, request: { amount: bigint; expiresInSeconds: number; nonce: bigint; chainNowSeconds: bigint }): GrantPermit {
  return {
    chainId: policy.chainId,
    token: policy.usdc,
    amount: request.amount,
    expiration: request.chainNowSeconds + BigInt(request.expiresInSeconds),
    nonce: request.nonce,
    spender: policy.relayer,
    sigDeadline: request.chainNowSeconds + BigInt(SIGNING_WINDOW_SECONDS),
  };
}

/** Field errors of an amount and a lifetime asked for (empty when both are fine). */
export function requestErrors(policy: GrantPolicy, amount: bigint, expiresInSeconds: number): FieldError[] {
  const errors: FieldError[] = [];
  if (amount <= 0n) errors.push({ path: "amount", message: "must be more than 0" });
  if (amount > policy.maxAmount) errors.push({ path: "amount", message: `must be at most ${formatUsdc(policy.maxAmount)} USDC on this deployment` });
  if (!Number.isInteger(expiresInSeconds) || expiresInSeconds < MIN_GRANT_SECONDS || expiresInSeconds > MAX_GRANT_SECONDS) {
    errors.push({ path: "expiresInSeconds", message: `must be a whole number of seconds from ${MIN_GRANT_SECONDS} to ${MAX_GRANT_SECONDS} (24 hours)` });
  }
  return errors;
}

/**
 * Field errors of a signed permit against the policy, the chain's time and the wallet's current
 * nonce (empty when it may be submitted). `replayed` is set when the only fault is a used nonce.
 */
export function permitErrors(
  permit: GrantPermit,
  verifyingContract: `0x${string}`,
  policy: GrantPolicy,
  chain: { nowSeconds: bigint; nonce: bigint },
): { errors: FieldError[]; replayed: boolean } {
  const errors: FieldError[] = [];
  if (permit.chainId !== policy.chainId) errors.push({ path: "typedData.domain.chainId", message: `must be ${policy.chainId}` });
  if (verifyingContract !== PERMIT2) errors.push({ path: "typedData.domain.verifyingContract", message: `must be Permit2 (${PERMIT2})` });
  if (permit.token !== policy.usdc) errors.push({ path: "typedData.message.details.token", message: `must be this network's USDC (${policy.usdc})` });
  if (permit.spender !== policy.relayer) errors.push({ path: "typedData.message.spender", message: `must be the agent's relayer (${policy.relayer})` });
  for (const error of requestErrors(policy, permit.amount, MIN_GRANT_SECONDS)) errors.push({ ...error, path: "typedData.message.details.amount" });
  const lifetime = permit.expiration - chain.nowSeconds;
  if (lifetime < BigInt(MIN_GRANT_SECONDS) || lifetime > BigInt(MAX_GRANT_SECONDS)) {
    errors.push({ path: "typedData.message.details.expiration", message: "must be between a minute and 24 hours from now" });
  }
  if (permit.sigDeadline < chain.nowSeconds) errors.push({ path: "typedData.message.sigDeadline", message: "has passed: prepare the grant again" });
  if (permit.sigDeadline > chain.nowSeconds + BigInt(MAX_GRANT_SECONDS)) errors.push({ path: "typedData.message.sigDeadline", message: "is too far away" });
  const replayed = permit.nonce < chain.nonce;
  if (permit.nonce !== chain.nonce) {
    errors.push({
      path: "typedData.message.details.nonce",
      message: replayed ? "was already used: this permit was submitted before" : `must be ${chain.nonce}`,
    });
  }
  return { errors, replayed: replayed && errors.length === 1 };
}
