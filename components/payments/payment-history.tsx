"use client";

import { useQuery } from "@tanstack/react-query";
import { useState } from "react";
import { fetchPaymentHistory, historyUrl, RequestProblemError, type HistoryFilters } from "@/lib/client/payment-history";
import { HistoryFiltersForm } from "./history-filters";
import { PaymentsTable } from "./payments-table";

export type PaymentHistoryProps = {
  /** The signed-in wallet (the server reads the session; this keys the cache). */
  address: string;
  /** The session ended on the server (expired, signed out elsewhere). */
  onSessionEnded: () => void;
};

/** The signed-in wallet's payments as the server records them, with its daily count, filters, pages and CSV. */
export function PaymentHistory({ address, onSessionEnded }: PaymentHistoryProps) {
  const [filters, setFilters] = useState<HistoryFilters>({});
  // The cursors of the pages walked so far; the last is the page shown ("before" that instant).
  const [cursors, setCursors] = useState<string[]>([]);
  const before = cursors.at(-1);
  const history = useQuery({
    queryKey: ["payments", address, filters, before],
    queryFn: async ({ signal }) => {
      try {
        return await fetchPaymentHistory({ ...filters, before }, signal);
      } catch (error) {
        if (error instanceof RequestProblemError && error.problem.status === 401) onSessionEnded();
        throw error;
      }
    },
    retry: false,
  });
  const data = history.data;

  return (
    <div className="history" data-testid="payment-history" aria-busy={history.isFetching}>
      {data ? (
        <p className="history__daily" data-testid="daily-spent" data-spent={data.daily.spent} data-reserved={data.daily.reserved} data-limit={data.daily.limit}>
          Spent in the last 24 h:{" "}
          <strong className="tabular">
            {data.daily.spent} of {data.daily.limit} USDC
          </strong>{" "}
          <span className="muted">(as the server counts it)</span>
          {data.daily.reserved !== "0" ? <span className="muted">, plus {data.daily.reserved} USDC held for payments not yet decided</span> : null}.
        </p>
      ) : null}
      <p className="small muted">The limit shown is the server&apos;s default daily limit; a chat can ask for a lower one. Payments from any browser count.</p>

      <HistoryFiltersForm
        value={filters}
        onApply={(next) => {
          setFilters(next);
          setCursors([]);
        }}
      />

      {history.isError ? (
        <p className="notice notice--error" role="alert" data-testid="history-error">
          {history.error.message}
        </p>
      ) : data ? (
        <PaymentsTable payments={data.payments} />
      ) : (
        <p className="muted">Loading payments…</p>
      )}

      <div className="history__actions">
        <button type="button" className="button button--small" disabled={cursors.length === 0} onClick={() => setCursors((list) => list.slice(0, -1))}>
          Newer
        </button>
        <button
          type="button"
          className="button button--small"
          data-testid="older-payments"
          disabled={!data?.nextCursor}
          onClick={() => data?.nextCursor && setCursors((list) => [...list, data.nextCursor as string])}
        >
          Older
        </button>
        <a className="button button--small history__download" href={historyUrl({ ...filters, before }, "csv")} download data-testid="download-csv">
          Download CSV
        </a>
      </div>
    </div>
  );
}
