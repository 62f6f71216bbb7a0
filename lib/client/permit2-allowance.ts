/**
 * The ERC-20 allowance the approval card asks the wallet to give Permit2 before a metered
 * (`upto`) payment: by default exactly what this payment needs (its ceiling), or a larger amount
 * the person types. Never unlimited: Permit2 moves a wallet's tokens for any app whose Permit2
 * signature the owner gives, so the allowance is all such signatures can ever take together.
 */
import { formatUsdc, parseUsdc } from "../money";
import type { ApprovalRequest } from "../stream";

export type Permit2AllowanceInput = { ok: true; amount: bigint } | { ok: false; problem: string };

/**
 * What the payment needs Permit2 to be allowed, in base units: the server's `permit2Approval.amount`,
 * else (a server from before that field) the ceiling the permit is signed for. Undefined when
 * none is asked or the amount cannot be read.
 */
export function neededPermit2Allowance(approval: ApprovalRequest): bigint | undefined {
  if (!approval.permit2Approval) return undefined;
  const needed = parseUsdc(approval.permit2Approval.amount ?? approval.ceiling ?? approval.amount);
  return needed === undefined || needed <= 0n ? undefined : needed;
}

/**
 * Reads the typed allowance: a USDC decimal (at most 6 decimals), parsed to base units without
 * floats, and not below what the payment needs (a smaller one could not settle its permit).
 */
export function parsePermit2Allowance(text: string, needed: bigint): Permit2AllowanceInput {
  const trimmed = text.trim();
  if (trimmed === "") return { ok: false, problem: `Enter how much Permit2 may move: at least ${formatUsdc(needed)} USDC.` };
  if (/^\d+\.\d{7,}$/.test(trimmed)) return { ok: false, problem: "USDC has 6 decimals: use at most 6 digits after the point." };
  const amount = parseUsdc(trimmed);
  if (amount === undefined) return { ok: false, problem: "Enter a USDC amount such as 5 or 2.5 (digits, at most 6 decimals)." };
  if (amount < needed) return { ok: false, problem: `This payment needs at least ${formatUsdc(needed)} USDC; a smaller allowance could not pay it.` };
  return { ok: true, amount };
}

/** In words, what giving Permit2 this allowance lets it do, and how it relates to this payment. */
export function describePermit2Allowance(amount: bigint, needed: bigint): string {
  const lets = `Permit2 may move up to ${formatUsdc(amount)} USDC from this wallet, for any app whose Permit2 signature you give, until you change it.`;
  if (amount === needed) return `${lets} That is this payment's ceiling: what it takes comes out of the allowance, so a later metered payment asks again.`;
  return `${lets} This payment needs ${formatUsdc(needed)} USDC of it; what is left pays later metered payments without a new approve, while it covers their ceiling.`;
}
