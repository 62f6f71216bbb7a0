"use client";

import { useState, type FormEvent } from "react";
import type { HistoryFilters } from "@/lib/client/payment-history";
import { PAYMENT_STATUS_ORDER, type PaymentStatus } from "@/lib/stream";

/** Discovery events are not payments; the journal never holds them. */
const STATUSES = PAYMENT_STATUS_ORDER.filter((status) => status !== "discovering" && status !== "discovered");

/** Status and service filters, applied together when the form is submitted. */
export function HistoryFiltersForm({ value, onApply }: { value: HistoryFilters; onApply: (filters: HistoryFilters) => void }) {
  const [status, setStatus] = useState<string>(value.status ?? "");
  const [service, setService] = useState(value.service ?? "");

  const submit = (event: FormEvent) => {
    event.preventDefault();
    onApply({ status: (status || undefined) as PaymentStatus | undefined, service: service.trim() || undefined });
  };

  return (
    <form className="history-filters" onSubmit={submit} aria-label="Filter payments" data-testid="history-filters">
      <label className="history-filters__field">
        <span className="field__label">Status</span>
        <select className="history-filters__input" value={status} onChange={(event) => setStatus(event.target.value)} data-testid="filter-status">
          <option value="">Any status</option>
          {STATUSES.map((item) => (
            <option key={item} value={item}>
              {item}
            </option>
          ))}
        </select>
      </label>
      <label className="history-filters__field">
        <span className="field__label">Service</span>
        <input
          className="history-filters__input"
          type="text"
          value={service}
          maxLength={200}
          placeholder="Exact name, e.g. Weather Now"
          onChange={(event) => setService(event.target.value)}
          data-testid="filter-service"
        />
      </label>
      <button type="submit" className="button" data-testid="apply-filters">
        Apply
      </button>
    </form>
  );
}
