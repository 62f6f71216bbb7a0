/**
 * Checks on the arguments of channel ledger calls, as lib/limits/store-input.ts checks the
 * budget ledger's: a bad argument is a bug in the caller (TypeError/RangeError), never a refusal.
 */
import { z } from "zod";
import { checkAmount, checkPool, checkPositiveInteger, checkReservationId, checkScopeKey, normalizePayer } from "../limits/store-input";
import type { ChannelBudgets, ChannelIdentity, ChannelJournalFacts } from "./channel-ledger";

const Hex32 = z.string().regex(/^0x[0-9a-fA-F]{64}$/, "expected a 0x-prefixed 32-byte hex string");
const Address = z.string().regex(/^0x[0-9a-fA-F]{40}$/, "expected a 0x-prefixed 20-byte address");
const Lease = z.string().uuid();
const Signature = z.string().regex(/^0x[0-9a-fA-F]{2,1024}$/, "expected a 0x-prefixed hex signature");
const Identity = z.object({
  channelId: Hex32,
  payer: Address,
  receiver: Address,
  token: Address,
  network: z.string().min(1).max(100),
  serviceUrl: z.string().url().max(2_000),
  config: z.record(z.string(), z.union([z.string(), z.number()])),
});
const Journal = z.strictObject({
  paymentId: z.string().regex(/^[A-Za-z0-9._:-]{1,200}$/),
  payerKind: z.enum(["agent", "user"]).optional(),
  service: z.string().max(500).optional(),
  resource: z.string().max(2_000).optional(),
  requestKey: z.string().max(512).optional(),
  conversationId: z.string().max(200).optional(),
});

function check<T>(schema: z.ZodType<T>, value: unknown, name: string): T {
  const result = schema.safeParse(value);
  if (!result.success) throw new TypeError(`${name}: ${result.error.issues[0]?.message ?? "invalid"}`);
  return result.data;
}

/** The channel id as the ledger keys it: lower-case hex. */
export function checkChannelId(channelId: string): `0x${string}` {
  return check(Hex32, channelId, "channelId").toLowerCase() as `0x${string}`;
}

/** A channel's identity with its addresses lower-cased. */
export function checkIdentity(identity: ChannelIdentity): ChannelIdentity {
  const checked = check(Identity, identity, "identity");
  const lower = (value: string) => value.toLowerCase() as `0x${string}`;
  return { ...checked, channelId: lower(checked.channelId), payer: lower(checked.payer), receiver: lower(checked.receiver), token: lower(checked.token) };
}

export function checkLease(lease: string): string {
  return check(Lease, lease, "lease");
}

export function checkSignature(signature: string): string {
  return check(Signature, signature, "signature");
}

export function checkJournal(journal: ChannelJournalFacts | undefined, reservationId: string): { paymentId: string; extra: string } {
  if (!journal) return { paymentId: reservationId, extra: "{}" };
  const { paymentId, ...extra } = check(Journal, journal, "journal");
  return { paymentId, extra: JSON.stringify(extra) };
}

/** The budgets as SQL arguments (numeric text, NULL for an absent scope or pool). */
export function budgetArguments(budgets: ChannelBudgets) {
  const scope = budgets.scope ? { key: checkScopeKey(budgets.scope.key), dailyLimit: checkAmount(budgets.scope.dailyLimit, "scope.dailyLimit") } : undefined;
  const pool = checkPool(budgets);
  return {
    payer: normalizePayer(budgets.payer),
    payerLimit: checkAmount(budgets.payerLimit, "payerLimit").toString(),
    scopeKey: scope?.key ?? null,
    scopeLimit: scope?.dailyLimit.toString() ?? null,
    poolKey: pool?.key ?? null,
    poolLimit: pool?.dailyLimit.toString() ?? null,
  };
}

export { checkAmount, checkPositiveInteger, checkReservationId, normalizePayer };
