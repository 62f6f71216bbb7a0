"use client";

import { formatCountdown } from "@/lib/client/format";
import { useNow } from "@/lib/client/use-now";
import type { AgentConfirmation } from "@/lib/stream";

export type ConfirmCardProps = {
  confirmation: AgentConfirmation;
  decision: "approved" | "rejected" | undefined;
  /** False while any request runs: one request at a time. */
  canAct: boolean;
  onConfirm: () => void;
  onReject: () => void;
};

/**
 * A payment the agent wallet would make to an address that came from a service's answer or a
 * page, not from discovery or the person's words: nothing is signed until they say so here.
 * No wallet is involved; the go-ahead is a token the page sends back with the same request.
 */
export function ConfirmCard({ confirmation, decision, canAct, onConfirm, onReject }: ConfirmCardProps) {
  const open = decision === undefined;
  const now = useNow(open, 500);
  const secondsLeft = Math.max(0, confirmation.expiresAt - Math.floor(now / 1000));
  const expired = secondsLeft <= 0;
  return (
    <section
      className={`approval-card${open && !expired ? "" : " approval-card--decided"}`}
      data-testid="confirm-card"
      data-decision={decision ?? (expired ? "expired" : "open")}
      aria-label="Approve a payment from the agent wallet"
    >
      {/* Only an open question asks; an answered or expired one says how it ended, below. */}
      <p className="approval-card__title">
        {open && !expired
          ? `Let the agent wallet call this service and pay at most ${confirmation.maxAmount} USDC?`
          : `The agent wallet's call to this service, paying at most ${confirmation.maxAmount} USDC:`}
      </p>
      <p className="approval-card__resource">
        <span className="muted">for </span>
        <code>
          {confirmation.method} {confirmation.resource}
        </code>
        <span className="muted">
          : this address came from a service&apos;s answer or a page, not from discovery or your words, and nothing was asked of it yet.
        </span>
      </p>
      {!open ? (
        <p className="approval-card__outcome">{decision === "approved" ? "Approved." : "Rejected: nothing was paid."}</p>
      ) : expired ? (
        <p className="approval-card__outcome">Expired before you approved it: nothing was paid. Ask again for a fresh quote.</p>
      ) : (
        <div className="approval-card__actions">
          <button type="button" className="button button--primary" data-testid="confirm-button" disabled={!canAct} onClick={onConfirm}>
            Call it, at most {confirmation.maxAmount} USDC
          </button>
          <button type="button" className="button" data-testid="reject-button" disabled={!canAct} onClick={onReject}>
            Don&apos;t pay
          </button>
          <span className="muted" data-testid="confirm-expiry">
            expires in {formatCountdown(secondsLeft)}
          </span>
        </div>
      )}
    </section>
  );
}
