/**
 * One page of a payer's history, newest first, and the cursor of the next. The cursor is the
 * `createdAt` of the page's last payment and the next page holds what was created strictly
 * before it, so payments created in the same millisecond must not be split across pages: those
 * at the page's edge move to the next page together.
 */
import type { HistoryQuery, PaymentJournal, PaymentRecord } from "../journal/payment-journal";

export type HistoryPage = { payments: PaymentRecord[]; nextCursor: number | undefined };

export async function readHistoryPage(journal: Pick<PaymentJournal, "history">, query: HistoryQuery): Promise<HistoryPage> {
  const rows = await journal.history({ ...query, limit: query.limit + 1 });
  const boundary = rows[query.limit];
  if (!boundary) return { payments: rows, nextCursor: undefined };
  const page = rows.slice(0, query.limit);
  const whole = page.filter((payment) => payment.createdAt !== boundary.createdAt);
  // A whole page in one millisecond cannot be split by time: the rest of that millisecond is
  // skipped (a payer would need more than `limit` payments in one millisecond).
  const payments = whole.length > 0 ? whole : page;
  return { payments, nextCursor: payments[payments.length - 1]?.createdAt };
}
