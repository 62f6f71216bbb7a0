"use client";

import { askStateOf, type AskState } from "@/lib/client/approval-state";
import type { PaymentView } from "@/lib/client/chat-types";
import { describeSignatureExpiry } from "@/lib/client/expiry-countdown";
import { STATUS_LABELS, serviceNameOf } from "@/lib/client/payment-view";
import { formatElapsed, hostOf, shortHex } from "@/lib/client/format";
import { useNetwork } from "@/lib/client/network-context";
import { useNow } from "@/lib/client/use-now";
import { PAYMENT_STATUS_ORDER, type PaymentFailureReason, type PaymentStatus } from "@/lib/stream";
import { ApprovalCard } from "./approval-card";
import { ConfirmCard } from "./confirm-card";
import { networkName } from "./network-name";
import { ReceiptNote } from "./receipt-note";
import { TransactionHash } from "./transaction-hash";

const FAILURE_WORDING: Record<PaymentFailureReason, string> = {
  "payment-failed": "The payment did not go through.",
  "limit-exceeded": "It would exceed your spending limits, so it was never signed.",
  "insufficient-balance": "The paying wallet does not hold enough USDC.",
  "service-unavailable": "The service did not answer.",
  rejected: "The payment was declined.",
  deadline: "The request ran out of time.",
  aborted: "The payment was stopped.",
};

type Step = { label: string; statuses: readonly PaymentStatus[] };

const STEPS: readonly Step[] = [
  { label: "Quote", statuses: ["quoted"] },
  { label: "Approve", statuses: ["awaiting-approval"] },
  { label: "Sign", statuses: ["signing"] },
  { label: "Verify", statuses: ["verifying"] },
  { label: "Settle", statuses: ["settling", "pending"] },
  { label: "Confirm", statuses: ["confirmed"] },
  { label: "Deliver", statuses: ["delivered"] },
];

const ASK_LABELS: Record<Exclude<AskState, "open" | "moved-on">, string> = {
  approved: "Approved",
  rejected: "Declined",
  expired: "Expired",
};

/**
 * A failed payment that was never attempted reads better as what stopped it; a question that
 * was answered or ran out no longer reads as waiting.
 */
function statusLabel(view: PaymentView, ask: AskState | undefined): string {
  if (view.status === "awaiting-approval" && ask !== undefined && ask !== "open" && ask !== "moved-on") return ASK_LABELS[ask];
  if (view.status !== "failed") return STATUS_LABELS[view.status];
  switch (view.details.reason) {
    case "limit-exceeded":
      return "Over your limit";
    case "insufficient-balance":
      return "Not enough USDC";
    case "rejected":
      return "Declined";
    case "aborted":
      return "Stopped";
    default:
      return STATUS_LABELS.failed;
  }
}

const rank = (status: PaymentStatus) => PAYMENT_STATUS_ORDER.indexOf(status);

/** Statuses that mean their step is complete once reached (the others are work in progress). */
const COMPLETE_ON_REACH: ReadonlySet<PaymentStatus> = new Set(["quoted", "confirmed", "delivered"]);

type StepState = "done" | "current" | "failed" | "todo";

function stepStates(steps: readonly Step[], view: PaymentView, stopped: boolean): StepState[] {
  const reached = rank(view.progress);
  const states = steps.map((step): StepState => {
    const first = Math.min(...step.statuses.map(rank));
    const last = Math.max(...step.statuses.map(rank));
    if (reached > last || (reached >= first && COMPLETE_ON_REACH.has(view.progress))) return "done";
    return reached >= first ? "current" : "todo";
  });
  if (view.status === "failed" || stopped) {
    const index = states.includes("current") ? states.indexOf("current") : states.indexOf("todo");
    if (index >= 0) states[index] = "failed";
  }
  return states;
}

/** `stopped`: the payment ended where it stands without failing (an approval declined or expired). */
function Progress({ view, needsApproval, stopped }: { view: PaymentView; needsApproval: boolean; stopped: boolean }) {
  const steps = needsApproval ? STEPS : STEPS.filter((step) => step.label !== "Approve");
  const states = stepStates(steps, view, stopped);
  return (
    <ol className="progress" aria-label="Payment progress">
      {steps.map((step, index) => {
        const state = states[index] ?? "todo";
        return (
          <li key={step.label} className={`progress__step progress__step--${state}`} aria-current={state === "current" ? "step" : undefined}>
            <span className="progress__dot" aria-hidden="true" />
            <span className="progress__label">{step.label}</span>
          </li>
        );
      })}
    </ol>
  );
}

export type PaymentCardProps = {
  view: PaymentView;
  /** The turn is still receiving events: the elapsed clock runs. */
  active: boolean;
  canAct: boolean;
  onSigned: (signature: `0x${string}`) => void;
  /** The person lets the agent wallet pay an address of unknown origin (see ConfirmCard). */
  onConfirm: (token: string) => void;
  /** The wallet signed the service's sign-in-with-x message instead of paying again. */
  onSignedIn: (signature: `0x${string}`) => void;
  onReject: () => void;
};

export function PaymentCard({ view, active, canAct, onSigned, onConfirm, onSignedIn, onReject }: PaymentCardProps) {
  const network = useNetwork();
  const running = active && view.endedAt === undefined;
  const { details, approval } = view;
  // A pending payment counts down to its authorization's expiry, and an open question to its
  // own, even once the request has ended.
  const counting = (view.status === "pending" && details.expiresAt !== undefined) || (view.status === "awaiting-approval" && view.decision === undefined);
  const now = useNow(running || counting, running ? 100 : 1000);
  const elapsed = (view.endedAt ?? (running ? Math.max(now, view.updatedAt) : view.updatedAt)) - view.firstSeenAt;
  const ask = askStateOf(view, now);
  // The ask's own words ("Approve … in your wallet") go once it is answered or has expired.
  const message = view.status === "awaiting-approval" && ask !== undefined && ask !== "open" ? undefined : details.message;
  const amount = details.amount ?? approval?.amount;
  const payTo = details.payTo ?? approval?.payTo;
  const resource = details.resource ?? approval?.resource;
  const service = serviceNameOf(view);
  const needsApproval = approval !== undefined || view.status === "awaiting-approval";
  const showApproval = approval !== undefined && (view.status === "awaiting-approval" || view.decision !== undefined);

  return (
    <article
      className={`payment-card payment-card--${view.status}`}
      data-testid="payment-card"
      data-status={view.status}
      data-payment-id={view.id}
      aria-label={`Payment to ${service}: ${statusLabel(view, ask)}`}
    >
      <header className="card-header">
        <span className="card-title">
          Payment to {service}
          {resource && details.service ? <span className="card-title__sub">{hostOf(resource)}</span> : null}
        </span>
        <span className={`status-badge status-badge--${view.status}`} data-testid="payment-status">
          {statusLabel(view, ask)}
        </span>
      </header>
      <dl className="facts">
        <div>
          <dt>Amount</dt>
          <dd data-testid="payment-amount">
            {amount ? `${amount} USDC` : "—"}
            {/* A metered payment: the signed ceiling beside the amount (settled, once it is). */}
            {details.ceiling && details.ceiling !== amount ? (
              <span className="small muted" data-testid="payment-ceiling">{` of up to ${details.ceiling} USDC`}</span>
            ) : null}
            {details.ceiling && details.ceiling === amount ? (
              <span className="small muted" data-testid="payment-ceiling">
                {" (ceiling, metered)"}
              </span>
            ) : null}
            {details.settlementFlag ? (
              <span className="new-payee" data-testid="settlement-flag">
                {" over-settled"}
              </span>
            ) : null}
          </dd>
        </div>
        <div>
          <dt>Payee</dt>
          <dd title={payTo}>
            {payTo ? shortHex(payTo) : "—"}
            {/* A payee this wallet never paid is worth a second look before approving. */}
            {details.newPayee ? (
              <span className="new-payee" data-testid="new-payee">
                {" "}
                first payment
              </span>
            ) : null}
          </dd>
        </div>
        <div>
          <dt>Network</dt>
          <dd>{networkName(details.network ?? approval?.network, network)}</dd>
        </div>
        <div>
          <dt>Elapsed</dt>
          <dd className="tabular">{formatElapsed(elapsed)}</dd>
        </div>
      </dl>
      <Progress view={view} needsApproval={needsApproval} stopped={view.status === "awaiting-approval" && (ask === "rejected" || ask === "expired")} />
      {details.txHash ? (
        <p className="payment-card__tx">
          Transaction <TransactionHash hash={details.txHash} explorerUrl={details.explorerUrl} />
        </p>
      ) : null}
      {message ? <p className="card-message">{message}</p> : null}
      {view.status === "pending" && details.expiresAt !== undefined ? (
        <p className="card-message tabular" data-testid="payment-expiry">
          {describeSignatureExpiry(details.expiresAt, now)}
        </p>
      ) : null}
      {details.receipt ? <ReceiptNote receipt={details.receipt} /> : null}
      {view.status === "failed" && details.reason && !details.message ? (
        <p className="card-message card-message--warning">{FAILURE_WORDING[details.reason]}</p>
      ) : null}
      {details.confirmation && (view.status === "awaiting-approval" || view.decision !== undefined) ? (
        <ConfirmCard
          confirmation={details.confirmation}
          decision={view.decision}
          canAct={canAct}
          onConfirm={() => {
            if (details.confirmation) onConfirm(details.confirmation.token);
          }}
          onReject={onReject}
        />
      ) : null}
      {showApproval && approval ? (
        <ApprovalCard
          approval={approval}
          serviceName={service}
          decision={view.decision}
          outcome={view.status}
          paidAmount={view.status === "delivered" || view.status === "confirmed" ? details.amount : undefined}
          canAct={canAct}
          onSigned={onSigned}
          onReject={onReject}
          signIn={details.signIn}
          onSignedIn={onSignedIn}
        />
      ) : null}
    </article>
  );
}
