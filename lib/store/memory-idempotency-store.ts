/**
 * Idempotency keys in process memory (single instance). Each call does its bookkeeping
 * without awaiting, so `claim` is atomic like SET NX.
 */
import { toJsonRecord, type IdempotencyRecord, type IdempotencySlot } from "./idempotency-record";
import type { ClaimResult, IdempotencyStore } from "./store-types";
import { checkIdempotencyKey, checkPositiveInteger } from "../limits/store-input";

type Held = { slot: IdempotencySlot; expiresAt: number };

/** Expired keys are swept every this many writes, so memory stays bounded. */
const SWEEP_EVERY = 1000;

/**
 * @example
 * const store = new MemoryIdempotencyStore();
 * if ((await store.claim(key, 60)).claimed) await store.complete(key, { status: "stop" }, 86_400);
 */
export class MemoryIdempotencyStore implements IdempotencyStore {
  private readonly slots = new Map<string, Held>();
  private writesSinceSweep = 0;

  /** `clock` exists for tests of expiry. */
  constructor(private readonly clock: () => number = Date.now) {}

  async claim(key: string, ttlSeconds: number, holder?: string): Promise<ClaimResult> {
    checkIdempotencyKey(key);
    checkPositiveInteger(ttlSeconds, "ttlSeconds");
    const held = this.read(key);
    if (held?.slot.state === "complete") return { claimed: false, record: held.slot.record };
    if (held)
      return {
        claimed: false,
        record: null,
        lapsesInMs: Math.max(0, held.expiresAt - this.clock()),
        ...(held.slot.holder ? { holder: held.slot.holder } : {}),
      };
    this.write(key, { state: "pending", ...(holder ? { holder } : {}) }, ttlSeconds);
    return { claimed: true };
  }

  async complete(key: string, record: IdempotencyRecord, ttlSeconds: number): Promise<void> {
    checkIdempotencyKey(key);
    checkPositiveInteger(ttlSeconds, "ttlSeconds");
    this.write(key, { state: "complete", record: toJsonRecord(record) }, ttlSeconds);
  }

  async get(key: string): Promise<IdempotencyRecord | null> {
    checkIdempotencyKey(key);
    const held = this.read(key);
    return held?.slot.state === "complete" ? toJsonRecord(held.slot.record) : null;
  }

  async release(key: string, holder?: string): Promise<void> {
    checkIdempotencyKey(key);
    const slot = this.read(key)?.slot;
    if (slot?.state === "pending" && (holder === undefined || slot.holder === holder)) this.slots.delete(key);
  }

  private read(key: string): Held | undefined {
    const held = this.slots.get(key);
    if (held && held.expiresAt <= this.clock()) {
      this.slots.delete(key);
      return undefined;
    }
    return held;
  }

  private write(key: string, slot: IdempotencySlot, ttlSeconds: number): void {
    const now = this.clock();
    this.slots.set(key, { slot, expiresAt: now + ttlSeconds * 1000 });
    this.writesSinceSweep += 1;
    if (this.writesSinceSweep < SWEEP_EVERY) return;
    this.writesSinceSweep = 0;
    for (const [heldKey, held] of this.slots) if (held.expiresAt <= now) this.slots.delete(heldKey);
  }
}
