/** The journal in process memory, for unit tests and the memory store. */
import {
  FINAL_STATUSES,
  mergeEntry,
  type HistoryQuery,
  type JournalEntry,
  type JournalEvent,
  type PaymentJournal,
  type PaymentRecord,
} from "./payment-journal";

export class MemoryJournal implements PaymentJournal {
  private readonly payments = new Map<string, PaymentRecord>();
  private readonly trail: JournalEvent[] = [];

  async record(entry: JournalEntry): Promise<void> {
    const { id, status, at, ...details } = entry;
    this.payments.set(id, mergeEntry(this.payments.get(id), entry));
    this.trail.push({ paymentId: id, status, at, details });
  }

  async get(id: string): Promise<PaymentRecord | undefined> {
    return this.payments.get(id);
  }

  async events(id: string): Promise<JournalEvent[]> {
    return this.trail.filter((event) => event.paymentId === id);
  }

  async unsettled(limit: number): Promise<PaymentRecord[]> {
    return [...this.payments.values()]
      .filter((payment) => payment.nonce && !FINAL_STATUSES.has(payment.status))
      .sort((a, b) => a.createdAt - b.createdAt)
      .slice(0, limit);
  }

  async hasPaid(payer: string, payTo: string): Promise<boolean> {
    return [...this.payments.values()].some(
      (payment) =>
        payment.payer.toLowerCase() === payer.toLowerCase() &&
        payment.payTo?.toLowerCase() === payTo.toLowerCase() &&
        (payment.status === "confirmed" || payment.status === "delivered"),
    );
  }

  async ofRequest(requestKey: string, limit: number): Promise<PaymentRecord[]> {
    return [...this.payments.values()]
      .filter((payment) => payment.requestKey === requestKey)
      .sort((a, b) => b.createdAt - a.createdAt)
      .slice(0, limit);
  }

  async history(query: HistoryQuery): Promise<PaymentRecord[]> {
    return [...this.payments.values()]
      .filter(
        (payment) =>
          (!query.payer || payment.payer.toLowerCase() === query.payer.toLowerCase()) &&
          (!query.status || payment.status === query.status) &&
          (!query.service || payment.service === query.service) &&
          (query.before === undefined || payment.createdAt < query.before),
      )
      .sort((a, b) => b.createdAt - a.createdAt)
      .slice(0, query.limit);
  }
}
