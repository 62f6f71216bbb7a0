"use client";

import dynamic from "next/dynamic";
import { useEffect, useLayoutEffect, useRef, type ReactNode } from "react";
import type { Turn } from "@/lib/client/chat-types";
import type { ApprovalRequest, SignInRequest } from "@/lib/stream";

const loadAssistantMessage = () => import("./assistant-message").then((module) => module.AssistantMessage);

/**
 * An answer's rendering (Markdown, discovery and payment cards) is not part of the page's first
 * load: an empty chat shows none of it. It is fetched as soon as the browser is idle after the
 * page starts, so it is there before the first answer; until then an answer shows as a pending
 * bubble.
 */
const AssistantMessage = dynamic(loadAssistantMessage, {
  ssr: false,
  loading: () => (
    <article className="message message--assistant" aria-busy="true" aria-label="Agent">
      <p className="message__pending">…</p>
    </article>
  ),
});

export type MessageListProps = {
  turns: readonly Turn[];
  idle: boolean;
  onSigned: (turnId: string, paymentId: string, approval: ApprovalRequest, signature: `0x${string}`) => void;
  onConfirmed: (turnId: string, paymentId: string, token: string) => void;
  onSignedIn: (turnId: string, paymentId: string, approval: ApprovalRequest, signIn: SignInRequest, signature: `0x${string}`) => void;
  onReject: (turnId: string, paymentId: string) => void;
  emptyState: ReactNode;
};

/** How close to the bottom (px) still counts as "following" the conversation. */
const FOLLOW_THRESHOLD = 96;

export function MessageList({ turns, idle, onSigned, onConfirmed, onSignedIn, onReject, emptyState }: MessageListProps) {
  const scroller = useRef<HTMLDivElement>(null);
  const following = useRef(true);

  useEffect(() => {
    const prefetch = () => void loadAssistantMessage();
    if (typeof window.requestIdleCallback === "function") {
      const handle = window.requestIdleCallback(prefetch, { timeout: 2_000 });
      return () => window.cancelIdleCallback(handle);
    }
    const timer = setTimeout(prefetch, 200);
    return () => clearTimeout(timer);
  }, []);

  // Follow new content only while the reader is at the bottom; never yank them back up or down.
  useLayoutEffect(() => {
    const element = scroller.current;
    if (element && following.current) element.scrollTop = element.scrollHeight;
  }, [turns]);

  return (
    <div
      ref={scroller}
      className="message-list"
      onScroll={(event) => {
        const element = event.currentTarget;
        following.current = element.scrollHeight - element.scrollTop - element.clientHeight < FOLLOW_THRESHOLD;
      }}
    >
      <div role="log" aria-live="polite" aria-relevant="additions text" aria-label="Conversation" className="message-list__inner">
        {turns.length === 0 ? emptyState : null}
        {turns.map((turn) =>
          turn.role === "user" ? (
            <article key={turn.id} className={`message message--user${turn.excluded ? " message--excluded" : ""}`} data-testid="user-message" aria-label="You">
              <p className="message__user-text">{turn.content}</p>
              {turn.excluded ? <p className="message__flag">Not sent to the agent</p> : null}
            </article>
          ) : (
            <AssistantMessage key={turn.id} turn={turn} idle={idle} onSigned={onSigned} onConfirmed={onConfirmed} onSignedIn={onSignedIn} onReject={onReject} />
          ),
        )}
      </div>
    </div>
  );
}
