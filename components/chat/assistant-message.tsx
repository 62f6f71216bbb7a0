"use client";

import { Fragment } from "react";
import type { AssistantTurn } from "@/lib/client/chat-types";
import { isDiscovery, isTurnActive } from "@/lib/client/payment-view";
import { useAskState } from "@/lib/client/use-ask-state";
import type { ApprovalRequest, SignInRequest } from "@/lib/stream";
import { Markdown } from "../markdown/markdown";
import { DeliveredResultCard } from "./delivered-result-card";
import { DiscoveryCard } from "./discovery-card";
import { FinishNote } from "./finish-note";
import { PaymentCard } from "./payment-card";

export type AssistantMessageProps = {
  turn: AssistantTurn;
  /** No request is running anywhere: approvals may be acted on. */
  idle: boolean;
  onSigned: (turnId: string, paymentId: string, approval: ApprovalRequest, signature: `0x${string}`) => void;
  onConfirmed: (turnId: string, paymentId: string, token: string) => void;
  onSignedIn: (turnId: string, paymentId: string, approval: ApprovalRequest, signIn: SignInRequest, signature: `0x${string}`) => void;
  onReject: (turnId: string, paymentId: string) => void;
};

export function AssistantMessage({ turn, idle, onSigned, onConfirmed, onSignedIn, onReject }: AssistantMessageProps) {
  const active = isTurnActive(turn);
  const empty = turn.parts.length === 0;
  // Text that asked for an approval goes once it is answered or expired; the card says how it ended.
  const asks = useAskState(turn);
  return (
    <article className="message message--assistant" data-testid="assistant-message" data-phase={turn.phase} aria-label="Agent">
      <div className="message__body">
        {turn.parts.map((part) => {
          switch (part.kind) {
            case "text":
              if (asks.staleParts.has(part.key)) return null;
              return (
                <div key={part.key} className="message__text markdown" data-testid="assistant-text">
                  <Markdown text={part.text} />
                </div>
              );
            case "payment": {
              const view = turn.payments[part.id];
              if (!view) return null;
              if (isDiscovery(view)) return <DiscoveryCard key={part.key} view={view} />;
              const approval = view.approval;
              return (
                <Fragment key={part.key}>
                  <PaymentCard
                    view={view}
                    active={active}
                    canAct={idle}
                    onSigned={(signature) => {
                      if (approval) onSigned(turn.id, view.id, approval, signature);
                    }}
                    onConfirm={(token) => onConfirmed(turn.id, view.id, token)}
                    onSignedIn={(signature) => {
                      const signIn = view.details.signIn;
                      if (approval && signIn) onSignedIn(turn.id, view.id, approval, signIn, signature);
                    }}
                    onReject={() => onReject(turn.id, view.id)}
                  />
                  <DeliveredResultCard view={view} />
                </Fragment>
              );
            }
            case "error":
              return (
                <p key={part.key} className="stream-error" data-testid="stream-error" data-code={part.code}>
                  <strong>Error:</strong> {part.message}
                </p>
              );
            case "notice":
              return (
                <p
                  key={part.key}
                  className={`notice notice--${part.tone}`}
                  data-testid={part.role === "stopped" ? "stop-note" : part.role === "problem" ? "request-problem" : "notice"}
                >
                  {part.text}
                </p>
              );
          }
        })}
        {active && (empty || turn.phase === "waiting") ? (
          <p className="typing" data-testid="typing">
            <span className="typing__dots" aria-hidden="true">
              <span />
              <span />
              <span />
            </span>
            <span className="visually-hidden">The agent is working…</span>
          </p>
        ) : null}
        {turn.finish ? <FinishNote finish={turn.finish} approval={asks.pendingApproval} /> : null}
        {turn.malformed > 0 ? (
          <p className="muted small">
            {turn.malformed} unreadable line{turn.malformed === 1 ? " was" : "s were"} skipped in this answer.
          </p>
        ) : null}
      </div>
    </article>
  );
}
