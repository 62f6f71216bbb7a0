"use client";

import type { PaymentView } from "@/lib/client/payment-history";
import { ReceiptNote } from "../chat/receipt-note";
import { TransactionHash } from "../chat/transaction-hash";

const dateTimeFormat = new Intl.DateTimeFormat(undefined, { year: "numeric", month: "short", day: "numeric", hour: "2-digit", minute: "2-digit", second: "2-digit" });

/** One payer's payments, newest first: status, amount, service, time and transaction. */
export function PaymentsTable({ payments }: { payments: readonly PaymentView[] }) {
  if (payments.length === 0) {
    return (
      <p className="notice small" data-testid="payments-empty">
        No payments match.
      </p>
    );
  }
  return (
    <div className="history-table__scroll">
      <table className="history-table" data-testid="payments-table">
        <caption className="visually-hidden">Payments, newest first</caption>
        <thead>
          <tr>
            <th scope="col">Status</th>
            <th scope="col" className="history-table__amount">
              Amount
            </th>
            <th scope="col">Service</th>
            <th scope="col">Time</th>
            <th scope="col">Transaction</th>
          </tr>
        </thead>
        <tbody>
          {payments.map((payment) => (
            <tr key={payment.id} data-testid="payment-row" data-payment-id={payment.id} data-status={payment.status} data-tx-hash={payment.txHash ?? undefined}>
              <td>
                <span className={`status-badge status-badge--${payment.status}`}>{payment.status}</span>
                {payment.reason ? <div className="small muted">{payment.reason}</div> : null}
              </td>
              <td className="history-table__amount tabular" data-testid="payment-amount">
                {payment.amount === null ? "—" : `${payment.amount} USDC`}
              </td>
              <td>
                <span className="history-table__service" title={payment.resource ?? undefined}>
                  {payment.service ?? payment.resource ?? "—"}
                </span>
              </td>
              <td>
                <time dateTime={payment.createdAt}>{dateTimeFormat.format(new Date(payment.createdAt))}</time>
              </td>
              <td>
                {payment.txHash ? <TransactionHash hash={payment.txHash} explorerUrl={payment.explorerUrl ?? undefined} compact /> : <span className="muted">—</span>}
                {payment.receipt ? <ReceiptNote receipt={payment.receipt} className="small" /> : null}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
