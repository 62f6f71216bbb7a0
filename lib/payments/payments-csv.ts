/** The payments of one page as a CSV download: the same rows and fields as the JSON answer. */
import { encodeCsv, type CsvCell } from "../csv/encode-csv";
import { PAYMENT_VIEW_FIELDS, type PaymentView } from "./payment-view";
import { RECEIPT_CSV_FIELDS, receiptCsvCells } from "./receipt-view";

/** The header: the payment's fields, then its receipt's verdict flattened. */
export const PAYMENT_CSV_FIELDS = [...PAYMENT_VIEW_FIELDS, ...RECEIPT_CSV_FIELDS] as const;

export function paymentCsvRow(payment: PaymentView): CsvCell[] {
  return [...PAYMENT_VIEW_FIELDS.map((field) => payment[field]), ...receiptCsvCells(payment.receipt)];
}

export function paymentsCsv(payments: readonly PaymentView[]): string {
  return encodeCsv(PAYMENT_CSV_FIELDS, payments.map(paymentCsvRow));
}
