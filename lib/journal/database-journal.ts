import "server-only";
/** The journal in the database (`payments` and `payment_events`, see lib/db/migrations/). */
import { CompiledQuery, sql, type Kysely, type Selectable } from "kysely";
import type { Database, PaymentsTable } from "../db/schema";
import type { PaymentFailureReason, PaymentStatus } from "../stream";
import { BoundedCache } from "../x402/bounded-cache";
import { storedSchemeOf } from "../x402/schemes/offer-readers";
import { readRecordedReceipt } from "./recorded-receipt";
import { FINAL_STATUSES, type HistoryQuery, type JournalEntry, type JournalEvent, type PaymentJournal, type PaymentRecord } from "./payment-journal";

/**
 * One journal step is one call of record_payment_step (migration 0007): one round trip, atomic,
 * and planned once per connection. Arguments are passed by name, so this list and the
 * function's signature cannot drift apart by position.
 */
const STEP_ARGUMENTS = [
  "id",
  "status",
  "payer",
  "payer_kind",
  "payer_kind_given",
  "nonce",
  "request_key",
  "conversation_id",
  "service",
  "resource",
  "method",
  "amount",
  "asset",
  "network",
  "pay_to",
  "valid_after",
  "valid_before",
  "reason",
  "message",
  "tx_hash",
  "receipt",
  "at",
  "details",
  "scheme",
  "ceiling",
  "settlement_flag",
] as const;
type StepArgument = (typeof STEP_ARGUMENTS)[number];
const RECORD_STEP = `SELECT record_payment_step(${STEP_ARGUMENTS.map((name, index) => `p_${name} => $${index + 1}`).join(", ")})`;

/** Payer and payee pairs remembered as "paid before"; beyond it the database answers again. */
const PAID_PAIRS_REMEMBERED = 10_000;

export class DatabaseJournal implements PaymentJournal {
  // A settled payment stays settled, so "this payer has paid this payee" never becomes false
  // and can be remembered: a repeat purchase (the common case) then costs no statement. A
  // "no" is always asked again, since another instance may have paid since.
  private readonly paidPairs = new BoundedCache<string, true>({ maxEntries: PAID_PAIRS_REMEMBERED });

  constructor(private readonly db: Kysely<Database>) {}

  async record(entry: JournalEntry): Promise<void> {
    const { id, status, at, ...details } = entry;
    const step: Record<StepArgument, string | number | boolean | null> = {
      id,
      status,
      payer: entry.payer?.toLowerCase() ?? "",
      payer_kind: entry.payerKind ?? "agent",
      payer_kind_given: entry.payerKind !== undefined,
      nonce: entry.nonce ?? null,
      request_key: entry.requestKey ?? null,
      conversation_id: entry.conversationId ?? null,
      service: entry.service ?? null,
      resource: entry.resource ?? null,
      method: entry.method ?? null,
      amount: entry.amount?.toString() ?? null,
      asset: entry.asset ?? null,
      network: entry.network ?? null,
      pay_to: entry.payTo ?? null,
      valid_after: entry.validAfter === undefined ? null : Number(entry.validAfter),
      valid_before: entry.validBefore === undefined ? null : Number(entry.validBefore),
      reason: entry.reason ?? null,
      message: entry.message ?? null,
      tx_hash: entry.txHash ?? null,
      receipt: entry.receipt ? JSON.stringify(entry.receipt) : null,
      scheme: entry.scheme ?? null,
      ceiling: entry.ceiling?.toString() ?? null,
      settlement_flag: entry.settlementFlag ?? null,
      at,
      details: JSON.stringify(details, (_key, value: unknown) => (typeof value === "bigint" ? value.toString() : value)),
    };
    await this.db.executeQuery(
      CompiledQuery.raw(
        RECORD_STEP,
        STEP_ARGUMENTS.map((name) => step[name]),
      ),
    );
  }

  async get(id: string): Promise<PaymentRecord | undefined> {
    const row = await this.db.selectFrom("payments").selectAll().where("id", "=", id).executeTakeFirst();
    return row ? toRecord(row) : undefined;
  }

  async events(id: string): Promise<JournalEvent[]> {
    const rows = await this.db.selectFrom("payment_events").selectAll().where("payment_id", "=", id).orderBy("seq").execute();
    return rows.map((row) => ({
      paymentId: row.payment_id,
      status: row.status as PaymentStatus,
      at: Number(row.at),
      details: (typeof row.details === "string" ? JSON.parse(row.details) : row.details) as JournalEvent["details"],
    }));
  }

  async unsettled(limit: number): Promise<PaymentRecord[]> {
    const rows = await this.db
      .selectFrom("payments")
      .selectAll()
      .where("status", "not in", [...FINAL_STATUSES])
      .where("nonce", "is not", null)
      .orderBy("created_at")
      .limit(limit)
      .execute();
    return rows.map(toRecord);
  }

  async hasPaid(payer: string, payTo: string): Promise<boolean> {
    const pair = `${payer.toLowerCase()} ${payTo.toLowerCase()}`;
    if (this.paidPairs.get(pair)) return true;
    // Served by the partial index of migration 0006 (payer, lower(pay_to)) over settled rows.
    const row = await this.db
      .selectFrom("payments")
      .select("id")
      .where("payer", "=", payer.toLowerCase())
      .where(sql<string>`lower(pay_to)`, "=", payTo.toLowerCase())
      .where("status", "in", ["confirmed", "delivered"])
      .limit(1)
      .executeTakeFirst();
    if (row) this.paidPairs.set(pair, true);
    return row !== undefined;
  }

  async ofRequest(requestKey: string, limit: number): Promise<PaymentRecord[]> {
    const rows = await this.db
      .selectFrom("payments")
      .selectAll()
      .where("request_key", "=", requestKey)
      .orderBy("created_at", "desc")
      .orderBy("id", "desc")
      .limit(limit)
      .execute();
    return rows.map(toRecord);
  }

  async history(query: HistoryQuery): Promise<PaymentRecord[]> {
    let select = this.db.selectFrom("payments").selectAll();
    if (query.payer) select = select.where("payer", "=", query.payer.toLowerCase());
    if (query.status) select = select.where("status", "=", query.status);
    if (query.service) select = select.where("service", "=", query.service);
    if (query.before !== undefined) select = select.where("created_at", "<", query.before);
    const rows = await select.orderBy("created_at", "desc").orderBy("id", "desc").limit(query.limit).execute();
    return rows.map(toRecord);
  }
}

function toRecord(row: Selectable<PaymentsTable>): PaymentRecord {
  const optional = <T>(value: T | null): T | undefined => (value === null ? undefined : value);
  return {
    id: row.id,
    status: row.status as PaymentStatus,
    payer: row.payer,
    payerKind: row.payer_kind as "agent" | "user",
    nonce: optional(row.nonce),
    requestKey: optional(row.request_key),
    conversationId: optional(row.conversation_id),
    service: optional(row.service),
    resource: optional(row.resource),
    method: optional(row.method),
    amount: row.amount === null ? undefined : BigInt(row.amount),
    asset: optional(row.asset),
    network: optional(row.network),
    payTo: optional(row.pay_to),
    validAfter: row.valid_after === null ? undefined : BigInt(row.valid_after),
    validBefore: row.valid_before === null ? undefined : BigInt(row.valid_before),
    reason: optional(row.reason) as PaymentFailureReason | undefined,
    message: optional(row.message),
    txHash: optional(row.tx_hash),
    receipt: row.receipt === null || row.receipt === undefined ? undefined : readRecordedReceipt(row.receipt),
    // A scheme is kept by name for every scheme but the default (NULL); the registry reads it back.
    ...withStoredScheme(row.scheme),
    ...(row.ceiling === null || row.ceiling === undefined ? {} : { ceiling: BigInt(row.ceiling) }),
    ...(row.settlement_flag === "over-settled" ? { settlementFlag: "over-settled" as const } : {}),
    createdAt: Number(row.created_at),
    updatedAt: Number(row.updated_at),
  };
}

function withStoredScheme(value: string | null | undefined): Pick<PaymentRecord, "scheme"> {
  const scheme = storedSchemeOf(value);
  return scheme === undefined ? {} : { scheme };
}
