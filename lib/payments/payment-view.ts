/**
 * One payment as `GET /api/payments` shows it: decimal USDC, ISO times, the explorer link of its
 * transaction, and null for what the journal does not know. The JSON rows and the CSV rows are
 * both made from this, so they cannot disagree.
 */
import type { PaymentRecord } from "../journal/payment-journal";
import { formatUsdc } from "../money";
import type { NetworkConfig } from "../network/network-config";
import { explorerTransactionUrl } from "../network-presets";
import { toReceiptView, type ReceiptView } from "./receipt-view";

export type PaymentView = {
  id: string;
  status: string;
  service: string | null;
  resource: string | null;
  method: string | null;
  /** Decimal USDC: the price; for a metered (`upto`) payment its ceiling until settled, then what it settled. */
  amount: string | null;
  /** Decimal USDC: a metered payment's signed ceiling; null for an exact price. */
  ceiling: string | null;
  /** "over-settled" when a metered payment took more than the service's own metering says. */
  settlementFlag: string | null;
  asset: string | null;
  network: string | null;
  payTo: string | null;
  txHash: string | null;
  explorerUrl: string | null;
  reason: string | null;
  message: string | null;
  createdAt: string;
  updatedAt: string;
  /** The service's signed receipt and its verdict; not a CSV column itself (see receipt-view.ts). */
  receipt: ReceiptView | null;
};

/** The columns, in order (CSV header). */
export const PAYMENT_VIEW_FIELDS = [
  "id",
  "status",
  "service",
  "resource",
  "method",
  "amount",
  "ceiling",
  "settlementFlag",
  "asset",
  "network",
  "payTo",
  "txHash",
  "explorerUrl",
  "reason",
  "message",
  "createdAt",
  "updatedAt",
] as const satisfies readonly (keyof PaymentView)[];

export function toPaymentView(record: PaymentRecord, network: Pick<NetworkConfig, "explorerUrl" | "networkNames">): PaymentView {
  // A payment recorded on another network (the deployment switched chains) gets no link to this one's explorer.
  const onThisNetwork = record.network === undefined || network.networkNames.includes(record.network);
  return {
    id: record.id,
    status: record.status,
    service: record.service ?? null,
    resource: record.resource ?? null,
    method: record.method ?? null,
    amount: record.amount === undefined ? null : formatUsdc(record.amount),
    ceiling: record.ceiling === undefined ? null : formatUsdc(record.ceiling),
    settlementFlag: record.settlementFlag ?? null,
    asset: record.asset ?? null,
    network: record.network ?? null,
    payTo: record.payTo ?? null,
    txHash: record.txHash ?? null,
    explorerUrl: record.txHash && onThisNetwork ? (explorerTransactionUrl(network, record.txHash) ?? null) : null,
    reason: record.reason ?? null,
    message: record.message ?? null,
    createdAt: new Date(record.createdAt).toISOString(),
    updatedAt: new Date(record.updatedAt).toISOString(),
    receipt: toReceiptView(record.receipt),
  };
}
