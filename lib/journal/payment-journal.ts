/**
 * The payment journal: every step of every payment attempt, as it happens. Append-only events
 * (the audit trail) plus one current-state row per payment (what the history shows and the
 * reconciler works from). Written before the next step of a payment begins.
 */
import type { PaymentFailureReason, PaymentStatus, SettlementFlag } from "../stream";
import type { RecordedReceipt } from "./recorded-receipt";

/** One step of a payment; fields absent from a later step keep their earlier value. */
export type JournalEntry = {
  /** The payment id shown in the stream (`pay_…`). */
  id: string;
  status: PaymentStatus;
  /** Epoch milliseconds. */
  at: number;
  payer?: string;
  payerKind?: "agent" | "user";
  requestKey?: string;
  conversationId?: string;
  service?: string;
  resource?: string;
  method?: string;
  /** Base units: the price; for a metered payment its ceiling until it settles, then what it settled. */
  amount?: bigint;
  /**
   * `upto` for a metered payment (Permit2 permit for a ceiling), `batch-settlement` for a channel's
   * deposit, voucher or refund; absent for `exact` (EIP-3009).
   */
  scheme?: "upto" | "batch-settlement";
  /** A metered payment's signed ceiling, base units (migration 0011). */
  ceiling?: bigint;
  /** A metered payment that settled more than the service's own metering says. */
  settlementFlag?: SettlementFlag;
  asset?: string;
  network?: string;
  payTo?: string;
  nonce?: string;
  validAfter?: bigint;
  /** Epoch seconds, as the authorization says. */
  validBefore?: bigint;
  reason?: PaymentFailureReason;
  message?: string;
  txHash?: string;
  /** The service's signed receipt and its verdict (migration 0005), on the `delivered` step. */
  receipt?: RecordedReceipt;
};

/** A payment's current state. */
export type PaymentRecord = Required<Pick<JournalEntry, "id" | "status" | "payer" | "payerKind">> &
  Omit<JournalEntry, "id" | "status" | "payer" | "payerKind" | "at"> & { createdAt: number; updatedAt: number };

export type JournalEvent = { paymentId: string; status: PaymentStatus; at: number; details: Omit<JournalEntry, "id" | "status" | "at"> };

export type HistoryQuery = {
  payer?: string;
  status?: PaymentStatus;
  service?: string;
  /** Only payments created before this instant (epoch ms): the next page's cursor. */
  before?: number;
  limit: number;
};

/** Statuses after which nothing about the payment can change. */
export const FINAL_STATUSES: ReadonlySet<PaymentStatus> = new Set(["delivered", "failed", "confirmed"]);

export interface PaymentJournal {
  /** Appends the event and moves the current state, in one transaction. */
  record(entry: JournalEntry): Promise<void>;
  get(id: string): Promise<PaymentRecord | undefined>;
  /** The audit trail of one payment, oldest first. */
  events(id: string): Promise<JournalEvent[]>;
  /** Payments with a nonce whose outcome is not final, oldest first, at most `limit`. */
  unsettled(limit: number): Promise<PaymentRecord[]>;
  /** Newest first. */
  history(query: HistoryQuery): Promise<PaymentRecord[]>;
  /**
   * The payments one request made (its request key), newest first, at most `limit`: what a retry
   * of that request is told when the attempt that made them stopped before recording its outcome.
   */
  ofRequest(requestKey: string, limit: number): Promise<PaymentRecord[]>;
  /** Whether the payer has a settled payment (confirmed or delivered) to this payee. */
  hasPaid(payer: string, payTo: string): Promise<boolean>;
}

/** The row a first event creates (a later one only fills what it knows). */
export function mergeEntry(previous: PaymentRecord | undefined, entry: JournalEntry): PaymentRecord {
  const known = Object.fromEntries(Object.entries(entry).filter(([, value]) => value !== undefined)) as Partial<JournalEntry>;
  const { at, ...rest } = known;
  return {
    ...(previous ?? { payer: "", payerKind: "agent", createdAt: entry.at }),
    ...rest,
    id: entry.id,
    status: entry.status,
    updatedAt: at ?? entry.at,
  } as PaymentRecord;
}
