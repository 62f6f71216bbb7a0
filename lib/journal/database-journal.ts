import "server-only";
/** The journal in the database (`payments` and `payment_events`, see lib/db/migrations.ts). */
import { CompiledQuery, sql, type Kysely, type Selectable } from "kysely";
import type { Database, PaymentsTable } from "../db/schema";
import type { PaymentFailureReason, PaymentStatus } from "../stream";
import { BoundedCache } from "../x402/bounded-cache";
import { readRecordedReceipt } from "./recorded-receipt";
import { FINAL_STATUSES, type HistoryQuery, type JournalEntry, type JournalEvent, type PaymentJournal, type PaymentRecord } from "./payment-journal";

/** Columns a later step may fill in; a step that leaves one out keeps its stored value. */
const KEPT = ["nonce", "request_key", "conversation_id", "service", "resource", "method", "amount", "asset", "network", "pay_to", "valid_after", "valid_before", "reason", "message", "tx_hash", "receipt"] as const;
const COLUMNS = ["id", "status", "payer", "payer_kind", ...KEPT, "created_at", "updated_at"] as const;
type Column = (typeof COLUMNS)[number];
const place = (column: Column) => `$${COLUMNS.indexOf(column) + 1}`;
const PAYER_KIND_GIVEN = `$${COLUMNS.length + 1}`;
const DETAILS = `$${COLUMNS.length + 2}`;

/**
 * One journal step as one statement, so one round trip and atomic: the payment's row is upserted
 * and its event appended from what the upsert returned (a data-modifying WITH). The text is
 * built once: this runs five times per paid turn, and building it per call through the query
 * builder cost more CPU than the database's own work.
 */
const RECORD_STEP = `
  WITH saved AS (
    INSERT INTO payments (${COLUMNS.join(", ")}) VALUES (${COLUMNS.map(place).join(", ")})
    ON CONFLICT (id) DO UPDATE SET
      status = excluded.status,
      updated_at = excluded.updated_at,
      payer = coalesce(nullif(excluded.payer, ''), payments.payer),
      payer_kind = CASE WHEN ${PAYER_KIND_GIVEN}::boolean THEN excluded.payer_kind ELSE payments.payer_kind END,
      ${KEPT.map((column) => `${column} = coalesce(excluded.${column}, payments.${column})`).join(",\n      ")}
    RETURNING id
  )
  INSERT INTO payment_events (payment_id, status, at, details)
  SELECT id, ${place("status")}, ${place("created_at")}, ${DETAILS}::jsonb FROM saved`;

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
    const row: Record<Column, string | number | null> = {
      id,
      status,
      payer: entry.payer?.toLowerCase() ?? "",
      payer_kind: entry.payerKind ?? "agent",
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
      created_at: at,
      updated_at: at,
    };
    const detailsJson = JSON.stringify(details, (_key, value: unknown) => (typeof value === "bigint" ? value.toString() : value));
    await this.db.executeQuery(CompiledQuery.raw(RECORD_STEP, [...COLUMNS.map((column) => row[column]), entry.payerKind !== undefined, detailsJson]));
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
    createdAt: Number(row.created_at),
    updatedAt: Number(row.updated_at),
  };
}
