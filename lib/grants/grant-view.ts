/**
 * A grant as callers see it (`POST /api/grants`, `GET /api/grants`, the chat's `d:` line):
 * USDC as decimal strings, times as ISO 8601, and what is left to spend, which is the grant's
 * amount less what its ledger scope holds (settled and reserved).
 */
import { formatUsdc } from "../money";
import { grantState, type GrantRecord, type GrantState } from "./grants";

export type GrantView = {
  id: string;
  walletAddress: `0x${string}`;
  amount: string;
  remaining: string;
  expiresAt: string;
  state: GrantState;
  createdAt: string;
  permitTransaction: `0x${string}`;
  /** The account that pays under the grant: `GET /api/payments?payer=` shows its payments to the wallet's holder. */
  payerAccount?: `0x${string}`;
  /** What went back to the wallet from the payer account after the grant ended (revoke, end of a turn, the reconciler's sweep). */
  floatReturned?: string;
  /** When the reconciler found the ended grant's payer account idle and empty: nothing more comes back. */
  sweptAt?: string;
};

export type GrantSpending = { settled: bigint; reserved: bigint };

export function toGrantView(grant: GrantRecord, spending: GrantSpending, now: number, payerAccount?: `0x${string}`): GrantView {
  const state = grantState(grant, now);
  const left = grant.amount - spending.settled - spending.reserved;
  return {
    id: grant.id,
    walletAddress: grant.walletAddress,
    amount: formatUsdc(grant.amount),
    // An ended grant has nothing left to spend, whatever its allowance on chain still says.
    remaining: formatUsdc(state === "active" && left > 0n ? left : 0n),
    expiresAt: new Date(grant.expiresAt).toISOString(),
    state,
    createdAt: new Date(grant.createdAt).toISOString(),
    permitTransaction: grant.permitTransaction,
    ...(payerAccount ? { payerAccount } : {}),
    ...(grant.floatReturned > 0n ? { floatReturned: formatUsdc(grant.floatReturned) } : {}),
    ...(grant.sweptAt === null ? {} : { sweptAt: new Date(grant.sweptAt).toISOString() }),
  };
}
