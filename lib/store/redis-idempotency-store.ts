import "server-only";
/**
 * Idempotency keys in Redis, shared by every instance. A claim is SET NX inside a Lua script
 * that also returns what the key holds when the claim fails, so the answer is consistent.
 */
import { z } from "zod";
import { IdempotencySlot, toJsonRecord, type IdempotencyRecord } from "./idempotency-record";
import type { RedisConnection } from "./redis-connection";
import type { ClaimResult, IdempotencyStore } from "./store-types";
import { checkIdempotencyKey, checkPositiveInteger } from "../limits/store-input";

const ClaimReply = z.union([z.tuple([z.literal(1)]), z.tuple([z.literal(0), z.string(), z.number().int()])]);

/**
 * @example
 * const store = new RedisIdempotencyStore(connection, "x402:");
 * const claim = await store.claim("chat:abc", 60);
 */
export class RedisIdempotencyStore implements IdempotencyStore {
  constructor(
    private readonly connection: RedisConnection,
    private readonly keyPrefix: string,
  ) {}

  async claim(key: string, ttlSeconds: number, holder?: string): Promise<ClaimResult> {
    const slotKey = this.slotKey(key);
    checkPositiveInteger(ttlSeconds, "ttlSeconds");
    const pending = JSON.stringify(IdempotencySlot.parse({ state: "pending", ...(holder ? { holder } : {}) }));
    const reply = ClaimReply.parse(await this.connection.script("x402IdempotencyClaim", [slotKey], [pending, ttlSeconds * 1000]));
    if (reply[0] === 1) return { claimed: true };
    const slot = parseSlot(reply[1]);
    if (slot.state === "complete") return { claimed: false, record: slot.record };
    // PTTL is Redis's own clock: the same answer from every instance.
    return { claimed: false, record: null, lapsesInMs: Math.max(0, reply[2]), ...(slot.holder ? { holder: slot.holder } : {}) };
  }

  async complete(key: string, record: IdempotencyRecord, ttlSeconds: number): Promise<void> {
    const slotKey = this.slotKey(key);
    checkPositiveInteger(ttlSeconds, "ttlSeconds");
    const value = JSON.stringify({ state: "complete", record: toJsonRecord(record) } satisfies IdempotencySlot);
    await this.connection.run((client) => client.set(slotKey, value, "PX", ttlSeconds * 1000));
  }

  async get(key: string): Promise<IdempotencyRecord | null> {
    const slotKey = this.slotKey(key);
    const value = await this.connection.run((client) => client.get(slotKey));
    if (value === null) return null;
    const slot = parseSlot(value);
    return slot.state === "complete" ? slot.record : null;
  }

  async release(key: string, holder?: string): Promise<void> {
    await this.connection.script("x402IdempotencyRelease", [this.slotKey(key)], holder === undefined ? [] : [holder]);
  }

  private slotKey(key: string): string {
    return `${this.keyPrefix}idempotency:${checkIdempotencyKey(key)}`;
  }
}

/** A slot that does not parse was written by something else: a bug, not a reason to pay twice. */
function parseSlot(value: string): IdempotencySlot {
  return IdempotencySlot.parse(JSON.parse(value));
}
