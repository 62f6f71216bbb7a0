import type { Metadata } from "next";
import { PaymentHistoryApp } from "@/components/payments/payment-history-app";
import { Providers } from "../providers";

export const metadata: Metadata = { title: "Payment history · x402 payment agent" };

/** The payment history page: a static shell around one client island, like the chat page. */
export default function PaymentsPage() {
  return (
    <Providers>
      <PaymentHistoryApp />
    </Providers>
  );
}
