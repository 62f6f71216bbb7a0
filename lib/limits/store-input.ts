/**
 * Checks on the arguments of store calls (lib/store) and of channel ledger calls (lib/channels).
 * A bad argument is a bug in the caller, so these throw TypeError/RangeError instead of
 * returning a refusal; they also keep user-chosen text (payer, keys) safe to embed in Redis key
 * names.
 */
import { z } from "zod";

const PayerAddress = z.string().regex(/^0x[0-9a-fA-F]{40}$/, "expected a 0x-prefixed 20-byte address");
const ReservationId = z.string().regex(/^[A-Za-z0-9._:-]{1,200}$/, "expected 1-200 characters of A-Z a-z 0-9 . _ : -");
const TxHash = z.string().regex(/^0x[0-9a-fA-F]{1,128}$/, "expected a 0x-prefixed hex transaction hash");
const IdempotencyKey = z.string().min(1).max(512);
const ScopeKey = z.string().regex(/^[A-Za-z0-9._:-]{1,200}$/, "expected 1-200 characters of A-Z a-z 0-9 . _ : -");
const RateLimitKey = z.string().min(1).max(512);

function check<T>(schema: z.ZodType<T>, value: unknown, name: string): T {
  const result = schema.safeParse(value);
  if (!result.success) throw new TypeError(`${name}: ${result.error.issues[0]?.message ?? "invalid"}`);
  return result.data;
}

/**
 * The payer as the ledger keys it: addresses are case-insensitive (EIP-55 is only a checksum).
 * @example
 * normalizePayer("0xAbC…"); // "0xabc…"
 */
export function normalizePayer(payer: string): string {
  return check(PayerAddress, payer, "payer").toLowerCase();
}

/** @example checkReservationId("pay_1f3c"); */
export function checkReservationId(reservationId: string): string {
  return check(ReservationId, reservationId, "reservationId");
}

/** A budget scope's key, as a named caller's budget is counted: @example checkScopeKey("key:0123456789abcdef"); */
export function checkScopeKey(key: string): string {
  return check(ScopeKey, key, "scope key").toLowerCase();
}

/** @example checkTxHash("0x5e1f…"); */
export function checkTxHash(txHash: string): string {
  return check(TxHash, txHash, "txHash");
}

/** @example checkIdempotencyKey("chat:0xabc…:3f2a"); */
export function checkIdempotencyKey(key: string): string {
  return check(IdempotencyKey, key, "idempotency key");
}

/** @example checkRateLimitKey("ip:203.0.113.7"); */
export function checkRateLimitKey(key: string): string {
  return check(RateLimitKey, key, "rate limit key");
}

/** @example checkAmount(5n, "amount"); */
export function checkAmount(amount: bigint, name: string): bigint {
  if (typeof amount !== "bigint" || amount < 0n) throw new RangeError(`${name} must be a bigint >= 0`);
  return amount;
}

/**
 * A commit above what was reserved: the budget was checked for the reservation only, so the
 * commit is refused and the reservation keeps holding its amount.
 */
export function exceedsReservation(reservationId: string): string {
  return `amount: reservation ${reservationId} cannot be committed above the amount it reserved`;
}

/** @example checkPositiveInteger(60, "ttlSeconds"); */
export function checkPositiveInteger(value: number, name: string): number {
  if (!Number.isSafeInteger(value) || value < 1) throw new RangeError(`${name} must be an integer >= 1`);
  return value;
}

/**
 * A reservation's pool, checked: a pool counts only beside a scope (it is the budget several
 * scopes share), so one without a scope is a caller's mistake.
 */
export function checkPool(input: { scope?: unknown; pool?: { key: string; dailyLimit: bigint } }): { key: string; dailyLimit: bigint } | undefined {
  if (!input.pool) return undefined;
  if (!input.scope) throw new TypeError("a pool is counted only with a scope");
  return { key: checkScopeKey(input.pool.key), dailyLimit: checkAmount(input.pool.dailyLimit, "pool.dailyLimit") };
}
