/**
 * A payment whose signed authorization may have reached a service but whose outcome the chain
 * has not decided yet. Its daily reservation is held until the reconciler proves the outcome:
 * used (commit it) or expired unused (release it).
 */
import { z } from "zod";

const Hex32 = z.string().regex(/^0x[0-9a-fA-F]{64}$/);
const Address = z.string().regex(/^0x[0-9a-fA-F]{40}$/);

export const PendingPayment = z.strictObject({
  /** The payment id shown in the stream (`pay_…`). */
  id: z.string().min(1).max(64),
  /** The authorizer (paying wallet). */
  payer: Address,
  /** The EIP-3009 nonce; also the ledger reservation id. */
  nonce: Hex32,
  /** The authorization's `validBefore`, epoch seconds: past it, the chain can prove the outcome. */
  validBefore: z.number().int().nonnegative(),
  /** Base units, as a decimal string (JSON has no bigint). */
  amount: z.string().regex(/^\d{1,30}$/),
  service: z.string().max(200),
  resource: z.string().max(2048),
  /** Epoch milliseconds when it was handed over. */
  recordedAt: z.number().int().nonnegative(),
});
export type PendingPayment = z.infer<typeof PendingPayment>;

/** Payments handed to the reconciler. Every call is idempotent. */
export interface PendingPaymentStore {
  /** Records (or replaces) a payment, keyed by its id. */
  add(payment: PendingPayment): Promise<void>;
  /** Recorded payments, oldest first, at most `limit`. */
  list(limit?: number): Promise<PendingPayment[]>;
  /** Forgets a payment once its outcome is recorded. */
  remove(id: string): Promise<void>;
}

export const DEFAULT_PENDING_LIST_LIMIT = 500;

/** In process memory: one instance only, like the rest of the memory store. */
export class MemoryPendingPaymentStore implements PendingPaymentStore {
  private readonly payments = new Map<string, PendingPayment>();

  async add(payment: PendingPayment): Promise<void> {
    const checked = PendingPayment.parse(payment);
    this.payments.delete(checked.id);
    this.payments.set(checked.id, checked);
  }

  async list(limit = DEFAULT_PENDING_LIST_LIMIT): Promise<PendingPayment[]> {
    return [...this.payments.values()].sort((a, b) => a.recordedAt - b.recordedAt).slice(0, limit);
  }

  async remove(id: string): Promise<void> {
    this.payments.delete(id);
  }
}
