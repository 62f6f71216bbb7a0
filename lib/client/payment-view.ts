/** How the page names and groups payments: status labels, the service's name, what Stop left. */
import type { PaymentStatus } from "@/lib/stream";
import type { AssistantTurn, PaymentView } from "./chat-types";
import { shortHex } from "./format";

const DISCOVERY_STATUSES: ReadonlySet<PaymentStatus> = new Set(["discovering", "discovered"]);
const IN_FLIGHT_STATUSES: ReadonlySet<PaymentStatus> = new Set(["signing", "verifying", "settling", "pending"]);
const SETTLED_STATUSES: ReadonlySet<PaymentStatus> = new Set(["confirmed", "delivered"]);

export function isDiscovery(view: Pick<PaymentView, "status" | "details">): boolean {
  return DISCOVERY_STATUSES.has(view.status) || (view.details.services !== undefined && view.details.amount === undefined);
}

export function isSettled(status: PaymentStatus): boolean {
  return SETTLED_STATUSES.has(status);
}

export function isTurnActive(turn: AssistantTurn): boolean {
  return turn.phase === "waiting" || turn.phase === "streaming";
}

/** What people call each status. */
export const STATUS_LABELS: Record<PaymentStatus, string> = {
  discovering: "Searching for services",
  discovered: "Services found",
  quoted: "Quoted",
  "awaiting-approval": "Waiting for your approval",
  signing: "Signing",
  verifying: "Verifying",
  settling: "Settling on-chain",
  pending: "Pending confirmation",
  confirmed: "Confirmed",
  delivered: "Delivered",
  failed: "Failed",
};

/** The name a person knows a payment by. */
export function serviceNameOf(view: Pick<PaymentView, "details" | "approval">): string {
  const resource = view.details.resource ?? view.approval?.resource;
  if (view.details.service) return view.details.service;
  if (resource) {
    try {
      return new URL(resource).host;
    } catch {
      return resource;
    }
  }
  return "the service";
}

function amountOf(view: PaymentView): string | undefined {
  return view.details.amount ?? view.approval?.amount;
}

function describePayment(view: PaymentView): string {
  const amount = amountOf(view);
  return `${amount ? `the payment of ${amount} USDC` : "the payment"} to ${serviceNameOf(view)}`;
}

/** What happened to the turn's payments when the person pressed Stop. */
export function describeStop(turn: AssistantTurn): string {
  const payments = Object.values(turn.payments).filter((view) => !isDiscovery(view));
  const sentences: string[] = [];
  for (const view of payments.filter((item) => isSettled(item.status))) {
    const hash = view.details.txHash;
    sentences.push(`${capitalize(describePayment(view))} was already confirmed${hash ? `: tx ${shortHex(hash, 10, 8)}` : ""}.`);
  }
  for (const view of payments.filter((item) => IN_FLIGHT_STATUSES.has(item.status))) {
    sentences.push(
      `${capitalize(describePayment(view))} was ${STATUS_LABELS[view.status].toLowerCase()} when you stopped; ` +
        "it may still settle, so check your receipts and balance in a moment.",
    );
  }
  if (sentences.length === 0) {
    const signedButUnreported = payments.some((view) => view.decision === "approved" && !isSettled(view.status) && view.status !== "failed");
    sentences.push(
      signedButUnreported
        ? "Your signature had already been sent; the payment may still be processed, so check your balance in a moment."
        : "Stopped before any payment was signed. Nothing was paid.",
    );
  } else {
    sentences.unshift("Stopped.");
  }
  return sentences.join(" ");
}

function capitalize(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}
