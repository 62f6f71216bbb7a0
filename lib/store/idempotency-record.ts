/**
 * What an idempotency key remembers about a finished request. Kept generic so each caller can
 * add what it needs; it must survive JSON, because the Redis store keeps it as JSON.
 */
import { z } from "zod";

/**
 * @example
 * IdempotencyRecord.parse({ status: "payment-complete", txHash: "0xabc…", outcome: { finishReason: "payment-complete" } });
 */
export const IdempotencyRecord = z.looseObject({
  status: z.string(),
  txHash: z.string().optional(),
  outcome: z.unknown().optional(),
});
export type IdempotencyRecord = z.infer<typeof IdempotencyRecord>;

/** What a key holds: a claim while the first request works, then its record. */
export const IdempotencySlot = z.discriminatedUnion("state", [
  z.strictObject({ state: z.literal("pending"), holder: z.string().max(200).optional() }),
  z.strictObject({ state: z.literal("complete"), record: IdempotencyRecord }),
]);
export type IdempotencySlot = z.infer<typeof IdempotencySlot>;

/**
 * Round-trips a record through JSON so both stores hand back exactly what Redis would (no
 * bigint, no undefined fields, no shared references).
 *
 * @throws TypeError when the record cannot be represented as JSON (for example a bigint).
 * @example
 * toJsonRecord({ status: "stop" }); // { status: "stop" }
 */
export function toJsonRecord(record: IdempotencyRecord): IdempotencyRecord {
  return IdempotencyRecord.parse(JSON.parse(JSON.stringify(IdempotencyRecord.parse(record))));
}
