import "server-only";
/** The journal in the database (`payments` and `payment_events`, see lib/db/migrations.ts). */
import { sql, type Kysely, type Selectable } from "kysely";
import type { Database, PaymentsTable } from "../db/schema";
import type { PaymentFailureReason, PaymentStatus } from "../stream";
import { FINAL_STATUSES, type HistoryQuery, type JournalEntry, type JournalEvent, type PaymentJournal, type PaymentRecord } from "./payment-journal";

export class DatabaseJournal implements PaymentJournal {
  constructor(private readonly db: Kysely<Database>) {}

  async record(entry: JournalEntry): Promise<void> {
    const { id, status, at, ...details } = entry;
    const row = {
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
      created_at: at,
      updated_at: at,
    };
    // A later step fills in what it knows and keeps the rest (coalesce with the stored row).
    const keep = (column: keyof typeof row) => sql<never>`coalesce(excluded.${sql.ref(column)}, payments.${sql.ref(column)})`;
    const detailsJson = JSON.stringify(details, (_key, value: unknown) => (typeof value === "bigint" ? value.toString() : value));
    // One statement, so one round trip and atomic: the state row is upserted and the event
    // appended from what the upsert returned (a data-modifying WITH).
    await this.db
      .with("saved", (db) =>
        db
          .insertInto("payments")
          .values(row)
          .onConflict((conflict) =>
            conflict.column("id").doUpdateSet({
              status,
              updated_at: at,
              payer: sql<string>`coalesce(nullif(excluded.payer, ''), payments.payer)`,
              payer_kind: entry.payerKind ? entry.payerKind : sql<string>`payments.payer_kind`,
              nonce: keep("nonce"),
              request_key: keep("request_key"),
              conversation_id: keep("conversation_id"),
              service: keep("service"),
              resource: keep("resource"),
              method: keep("method"),
              amount: keep("amount"),
              asset: keep("asset"),
              network: keep("network"),
              pay_to: keep("pay_to"),
              valid_after: keep("valid_after"),
              valid_before: keep("valid_before"),
              reason: keep("reason"),
              message: keep("message"),
              tx_hash: keep("tx_hash"),
            }),
          )
          .returning("id"),
      )
      .insertInto("payment_events")
      .columns(["payment_id", "status", "at", "details"])
      .expression((eb) => eb.selectFrom("saved").select(["saved.id", sql<string>`${status}::text`.as("status"), sql<number>`${at}::bigint`.as("at"), sql<string>`${detailsJson}::jsonb`.as("details")]))
      .execute();
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
    createdAt: Number(row.created_at),
    updatedAt: Number(row.updated_at),
  };
}
