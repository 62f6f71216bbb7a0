"use client";

import { useLayoutEffect, useRef, type FormEvent, type KeyboardEvent } from "react";
import { MAX_MESSAGE_CHARS } from "@/lib/stream/chat-size-limits";

export type ComposerProps = {
  draft: string;
  onDraftChange: (value: string) => void;
  onSend: () => void;
  onStop: () => void;
  busy: boolean;
  cooldownSeconds: number;
  /** Why sending is not possible right now (limits invalid, no wallet…), shown under the box. */
  blocker: string | undefined;
};

const MAX_ROWS_HEIGHT = 200;

export function Composer({ draft, onDraftChange, onSend, onStop, busy, cooldownSeconds, blocker }: ComposerProps) {
  const textarea = useRef<HTMLTextAreaElement>(null);
  const canSend = !busy && cooldownSeconds === 0 && blocker === undefined && draft.trim().length > 0;

  // Grow with the text up to a few lines; the box then scrolls.
  useLayoutEffect(() => {
    const element = textarea.current;
    if (!element) return;
    element.style.height = "auto";
    element.style.height = `${Math.min(element.scrollHeight, MAX_ROWS_HEIGHT)}px`;
  }, [draft]);

  function submit(event?: FormEvent) {
    event?.preventDefault();
    if (canSend) onSend();
  }

  function onKeyDown(event: KeyboardEvent<HTMLTextAreaElement>) {
    if (event.key === "Enter" && !event.shiftKey && !event.nativeEvent.isComposing) {
      event.preventDefault();
      submit();
    }
  }

  const hint =
    cooldownSeconds > 0
      ? "Too many requests: you can send again when the countdown on the button ends."
      : (blocker ?? "Enter sends, Shift+Enter adds a new line.");

  return (
    <form className="composer" onSubmit={submit} aria-label="Send a message">
      <label htmlFor="chat-input" className="visually-hidden">
        Message to the agent
      </label>
      <div className="composer__row">
        <textarea
          id="chat-input"
          ref={textarea}
          data-testid="chat-input"
          className="composer__input"
          rows={1}
          maxLength={MAX_MESSAGE_CHARS}
          placeholder="Ask for something: “What's the weather in Lisbon?”"
          value={draft}
          onChange={(event) => onDraftChange(event.target.value)}
          onKeyDown={onKeyDown}
          aria-describedby="composer-hint"
        />
        {busy ? (
          <button type="button" className="button button--stop" data-testid="stop-button" onClick={onStop}>
            Stop
          </button>
        ) : (
          <button type="submit" className="button button--primary composer__send" data-testid="send-button" disabled={!canSend}>
            {cooldownSeconds > 0 ? (
              <span data-testid="cooldown" data-seconds={cooldownSeconds} className="tabular">
                Wait {cooldownSeconds} s
              </span>
            ) : (
              "Send"
            )}
          </button>
        )}
      </div>
      <p id="composer-hint" className={`composer__hint${blocker || cooldownSeconds > 0 ? " composer__hint--warning" : ""}`} aria-live="polite">
        {hint}
      </p>
    </form>
  );
}
