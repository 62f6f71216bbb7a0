"use client";

import { shortHex } from "@/lib/client/format";
import { clearReceipts, type Receipt } from "@/lib/client/receipts";
import { TransactionHash } from "../chat/transaction-hash";

const timeFormat = new Intl.DateTimeFormat(undefined, { hour: "2-digit", minute: "2-digit" });
const dateTimeFormat = new Intl.DateTimeFormat(undefined, { month: "short", day: "numeric", hour: "2-digit", minute: "2-digit" });

function when(at: number, now: number): string {
  const sameDay = new Date(at).toDateString() === new Date(now).toDateString();
  return (sameDay ? timeFormat : dateTimeFormat).format(at);
}

export function ReceiptsPanel({ receipts, now }: { receipts: readonly Receipt[]; now: number }) {
  return (
    <div className="receipts" data-testid="receipts" data-count={receipts.length}>
      {receipts.length === 0 ? (
        <p className="small muted">No payments from this browser yet.</p>
      ) : (
        <>
          <ul className="receipts__list">
            {receipts.map((receipt) => (
              <li key={`${receipt.paymentId}-${receipt.txHash}`} className="receipt" data-testid="receipt">
                <div className="receipt__head">
                  <span className="receipt__service">{receipt.service}</span>
                  <strong className="tabular">{receipt.amount} USDC</strong>
                </div>
                {receipt.ceiling ? (
                  <div className="receipt__meta small muted" data-testid="receipt-ceiling">
                    {`metered: ceiling ${receipt.ceiling} USDC`}
                    {receipt.settlementFlag ? " · over-settled" : ""}
                  </div>
                ) : null}
                <div className="receipt__meta small muted">
                  <time dateTime={new Date(receipt.at).toISOString()}>{when(receipt.at, now)}</time>
                  {" · "}
                  {receipt.payer === "agent" ? "agent wallet" : shortHex(receipt.payer)}
                </div>
                <div className="receipt__tx small">
                  <TransactionHash hash={receipt.txHash} explorerUrl={receipt.explorerUrl} compact />
                </div>
              </li>
            ))}
          </ul>
          <button type="button" className="button button--small button--quiet" onClick={clearReceipts}>
            Clear receipts
          </button>
        </>
      )}
    </div>
  );
}
