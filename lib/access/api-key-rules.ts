import "server-only";
/**
 * The rules both key stores share, so memory and database cannot drift apart: what a valid
 * new key is, and how a presented token is judged once its row has been looked up.
 */
import { z } from "zod";
import { ApiKeyId, secretMatches, type ApiKeyRecord, type CallerBudget, type CreateApiKeyInput, type KeyCheck } from "./api-keys";
import { resolveNow } from "../clock";

/** Far above any real budget, far below numeric(78,0)'s limit. */
const MAX_AMOUNT = 10n ** 30n;
const Amount = z.bigint().min(0n).max(MAX_AMOUNT);

/** A key's name. No control or format characters: names are printed to the operator's terminal. */
export const ApiKeyName = z
  .string()
  .trim()
  .min(1)
  .max(64)
  .regex(/^[^\p{C}]+$/u, "must not contain control characters");

/** A budget's limits nest: one payment fits in a request, a request in a day. */
export function budgetInOrder(budget: CallerBudget): boolean {
  return budget.perPayment <= budget.perRequest && budget.perRequest <= budget.daily;
}

const NewKey = z
  .object({
    name: ApiKeyName,
    budget: z.object({ perPayment: Amount, perRequest: Amount, daily: Amount }),
    agentWallet: z.boolean().default(true),
    expiresAt: z.number().int().min(0).max(Number.MAX_SAFE_INTEGER).nullable().default(null),
  })
  .refine(({ budget }) => budgetInOrder(budget), {
    message: "expected perPayment <= perRequest <= daily",
    path: ["budget"],
  });

/** The record a valid `create` input describes (id and times filled in). Throws TypeError on a bad one. */
export function newKeyRecord(input: CreateApiKeyInput, id: string): ApiKeyRecord {
  const now = resolveNow(input.now);
  const parsed = NewKey.safeParse({ name: input.name, budget: input.budget, agentWallet: input.agentWallet, expiresAt: input.expiresAt ?? null });
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new TypeError(`api key ${issue?.path.join(".") ?? ""}: ${issue?.message ?? "invalid"}`);
  }
  const { name, budget, agentWallet, expiresAt } = parsed.data;
  // A key born expired is a mistake in the caller (a date in the past), not a key.
  if (expiresAt !== null && expiresAt <= now) throw new RangeError("api key expiresAt must be after now");
  return { id, name, budget: { ...budget }, agentWallet, createdAt: now, expiresAt, revokedAt: null };
}

/**
 * The answer for a token whose row was looked up (`found` undefined: no such id). The secret
 * is compared first, and in constant time, even for an unknown id.
 */
export function judgeKey(secret: string, found: { key: ApiKeyRecord; secretHash: string } | undefined, now: number): KeyCheck {
  if (!secretMatches(secret, found?.secretHash) || !found) return { ok: false, reason: "unknown" };
  if (found.key.revokedAt !== null) return { ok: false, reason: "revoked" };
  if (found.key.expiresAt !== null && found.key.expiresAt <= now) return { ok: false, reason: "expired" };
  return { ok: true, key: found.key };
}

/** Newest first; equal times by id, so both stores list in the same order. */
export function newestFirst(a: ApiKeyRecord, b: ApiKeyRecord): number {
  return b.createdAt - a.createdAt || (a.id < b.id ? 1 : a.id > b.id ? -1 : 0);
}

/** Whether `id` could be a key id; anything else is simply not found. */
export function isKeyId(id: unknown): id is string {
  return ApiKeyId.safeParse(id).success;
}
