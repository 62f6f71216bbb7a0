import "server-only";
/**
 * Pending payments in one Redis hash (id → JSON), shared by every instance, so a reconciler on
 * any instance (or the cron route) sees what any request handed over.
 */
import { DEFAULT_PENDING_LIST_LIMIT, PendingPayment, type PendingPaymentStore } from "./pending-payment";
import type { RedisConnection } from "./redis-connection";

export class RedisPendingPaymentStore implements PendingPaymentStore {
  constructor(
    private readonly connection: RedisConnection,
    private readonly keyPrefix: string,
  ) {}

  private get key(): string {
    return `${this.keyPrefix}pending-payments`;
  }

  async add(payment: PendingPayment): Promise<void> {
    const checked = PendingPayment.parse(payment);
    await this.connection.run((client) => client.hset(this.key, checked.id, JSON.stringify(checked)));
  }

  async list(limit = DEFAULT_PENDING_LIST_LIMIT): Promise<PendingPayment[]> {
    const values = await this.connection.run((client) => client.hvals(this.key));
    const payments: PendingPayment[] = [];
    for (const value of values) {
      try {
        const parsed = PendingPayment.safeParse(JSON.parse(value));
        if (parsed.success) payments.push(parsed.data);
      } catch {
        // A corrupt entry is skipped rather than blocking every other reconciliation.
      }
    }
    return payments.sort((a, b) => a.recordedAt - b.recordedAt).slice(0, limit);
  }

  async remove(id: string): Promise<void> {
    await this.connection.run((client) => client.hdel(this.key, id));
  }
}
