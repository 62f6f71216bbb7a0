/** The payments of one page as a CSV download: the same rows and fields as the JSON answer. */
import { encodeCsv } from "../csv/encode-csv";
import { PAYMENT_VIEW_FIELDS, type PaymentView } from "./payment-view";

export function paymentsCsv(payments: readonly PaymentView[]): string {
  return encodeCsv(
    PAYMENT_VIEW_FIELDS,
    payments.map((payment) => PAYMENT_VIEW_FIELDS.map((field) => payment[field])),
  );
}
