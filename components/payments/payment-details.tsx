"use client";

import { useMemo } from "react";
import type { PaymentView } from "@/lib/client/payment-history";
import { recallResult } from "@/lib/client/delivered-results";
import { askedOf } from "@/lib/client/result-view";
import { AskedLine, ResultCard } from "../result/result-card";

/**
 * One payment's details in the history: its result card when this tab still has the answer,
 * otherwise what was asked (the journal keeps the URL and method, not the answer; see
 * docs/decisions.md, "Result cards").
 */
export function PaymentDetails({ payment }: { payment: PaymentView }) {
  const kept = useMemo(() => recallResult(payment.id), [payment.id]);
  const service = payment.service ?? kept?.service ?? "Service";
  if (kept) return <ResultCard service={service} resource={payment.resource ?? kept.resource} result={kept.result} />;
  const asked = askedOf(payment.resource ?? undefined, { method: payment.method });
  return (
    <div className="payment-details" data-testid="payment-details">
      {asked ? <AskedLine asked={asked} /> : null}
      {payment.message ? <p className="small">{payment.message}</p> : null}
      <p className="small muted" data-testid="no-result-data">
        {payment.status === "delivered"
          ? "The answer itself is not kept by the server, and this browser tab has no copy of it."
          : "No answer was delivered for this payment."}
      </p>
    </div>
  );
}
