"use client";

import { Fragment, useState } from "react";
import type { PaymentView } from "@/lib/client/payment-history";
import { ReceiptNote } from "../chat/receipt-note";
import { TransactionHash } from "../chat/transaction-hash";
import { PaymentDetails } from "./payment-details";

const dateTimeFormat = new Intl.DateTimeFormat(undefined, {
  year: "numeric",
  month: "short",
  day: "numeric",
  hour: "2-digit",
  minute: "2-digit",
  second: "2-digit",
});

/** One payer's payments, newest first: status, amount, service, time and transaction. */
export function PaymentsTable({ payments }: { payments: readonly PaymentView[] }) {
  const [open, setOpen] = useState<ReadonlySet<string>>(() => new Set());
  const toggle = (id: string) =>
    setOpen((previous) => {
      const next = new Set(previous);
      if (!next.delete(id)) next.add(id);
      return next;
    });
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
            <Fragment key={payment.id}>
              <tr data-testid="payment-row" data-payment-id={payment.id} data-status={payment.status} data-tx-hash={payment.txHash ?? undefined}>
                <td>
                  <span className={`status-badge status-badge--${payment.status}`}>{payment.status}</span>
                  {payment.reason ? <div className="small muted">{payment.reason}</div> : null}
                </td>
                <td className="history-table__amount tabular" data-testid="payment-amount">
                  {payment.amount === null ? "—" : `${payment.amount} USDC`}
                  {payment.ceiling ? <div className="small muted" data-testid="payment-ceiling">{`ceiling ${payment.ceiling} USDC`}</div> : null}
                  {payment.settlementFlag ? (
                    <div className="small" data-testid="settlement-flag">
                      over-settled
                    </div>
                  ) : null}
                </td>
                <td>
                  <span className="history-table__service" title={payment.resource ?? undefined}>
                    {payment.service ?? payment.resource ?? "—"}
                  </span>
                  <div>
                    <button
                      type="button"
                      className="button button--small button--quiet history-table__toggle"
                      data-testid="payment-details-toggle"
                      aria-expanded={open.has(payment.id)}
                      aria-controls={`details-${payment.id}`}
                      onClick={() => toggle(payment.id)}
                    >
                      {open.has(payment.id) ? "Hide details" : "Details"}
                    </button>
                  </div>
                </td>
                <td>
                  <time dateTime={payment.createdAt}>{dateTimeFormat.format(new Date(payment.createdAt))}</time>
                </td>
                <td>
                  {payment.txHash ? (
                    <TransactionHash hash={payment.txHash} explorerUrl={payment.explorerUrl ?? undefined} compact />
                  ) : (
                    <span className="muted">—</span>
                  )}
                  {payment.receipt ? <ReceiptNote receipt={payment.receipt} className="small" /> : null}
                </td>
              </tr>
              {open.has(payment.id) ? (
                <tr id={`details-${payment.id}`} className="history-table__details" data-testid="payment-details-row">
                  <td colSpan={5}>
                    <div className="history-table__details-frame">
                      <PaymentDetails payment={payment} />
                    </div>
                  </td>
                </tr>
              ) : null}
            </Fragment>
          ))}
        </tbody>
      </table>
    </div>
  );
}
