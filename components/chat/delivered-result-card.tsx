"use client";

import { useEffect } from "react";
import type { PaymentView } from "@/lib/client/chat-types";
import { rememberResult } from "@/lib/client/delivered-results";
import { serviceNameOf } from "@/lib/client/payment-view";
import { ResultCard } from "../result/result-card";

/**
 * The result card of a delivered payment in the chat, placed right under its payment card: the
 * primary view of the data, whatever the model's text says about it. The answer is also kept
 * for this tab's payment history page (lib/client/delivered-results.ts).
 */
export function DeliveredResultCard({ view }: { view: PaymentView }) {
  const result = view.details.result;
  const service = serviceNameOf(view);
  const resource = view.details.resource ?? view.approval?.resource;
  useEffect(() => {
    if (result) rememberResult({ id: view.id, service, resource, result });
  }, [view.id, service, resource, result]);
  if (view.status !== "delivered" || !result) return null;
  return <ResultCard service={service} resource={resource} result={result} />;
}
