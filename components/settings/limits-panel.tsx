"use client";

import { LIMIT_FIELDS, limitsStore, type LimitField, type LimitsDraft, type LimitsValidation } from "@/lib/client/preferences";

const FIELD_INFO: Record<LimitField, { label: string; help: string; testId: string }> = {
  perPayment: { label: "Per payment", help: "The most one payment may cost.", testId: "limit-per-payment" },
  perRequest: { label: "Per request", help: "All payments for one message together.", testId: "limit-per-request" },
  daily: { label: "Per day", help: "Rolling 24 hours, per paying wallet.", testId: "limit-daily" },
};

export type LimitsPanelProps = {
  draft: LimitsDraft;
  validation: LimitsValidation;
  /** This browser's receipts in the last 24 h, as a decimal USDC string. */
  spentLastDay: string;
};

export function LimitsPanel({ draft, validation, spentLastDay }: LimitsPanelProps) {
  const errors = validation.ok ? {} : validation.errors;
  return (
    <div className="limits">
      {LIMIT_FIELDS.map((field) => {
        const info = FIELD_INFO[field];
        const id = `limit-${field}`;
        const error = errors[field];
        return (
          <div key={field} className="field">
            <label htmlFor={id} className="field__label">
              {info.label}
            </label>
            <div className="field__control">
              <input
                id={id}
                data-testid={info.testId}
                className="field__input tabular"
                type="text"
                inputMode="decimal"
                autoComplete="off"
                spellCheck={false}
                placeholder="server default"
                value={draft[field]}
                onChange={(event) => limitsStore.set((previous) => ({ ...previous, [field]: event.target.value }))}
                aria-invalid={error ? true : undefined}
                aria-describedby={`${id}-help`}
              />
              <span className="field__suffix" aria-hidden="true">
                USDC
              </span>
            </div>
            <p id={`${id}-help`} className={error ? "field__error" : "field__help"}>
              {error ? `${info.label}: ${error}` : info.help}
            </p>
          </div>
        );
      })}
      <p className="small muted">Empty fields use the server&apos;s defaults. The server also caps every limit.</p>
      <p className="spent" data-testid="spent-today">
        Spent in the last 24 h: <strong className="tabular">{spentLastDay} USDC</strong>
        <span className="small muted"> (this browser&apos;s receipts only; the server keeps its own ledger per wallet)</span>
      </p>
    </div>
  );
}
