"use client";

import { useRef, type KeyboardEvent } from "react";
import { payerStore, type PayerMode } from "@/lib/client/preferences";

const OPTIONS: { mode: PayerMode; label: string; description: string; testId: string }[] = [
  {
    mode: "agent",
    label: "Agent wallet",
    description: "The agent pays on its own, within your limits.",
    testId: "payer-agent",
  },
  {
    mode: "wallet",
    label: "My wallet",
    description: "Your connected wallet pays; you approve each payment.",
    testId: "payer-wallet",
  },
];

export function PayerToggle({ value }: { value: PayerMode }) {
  const buttons = useRef<(HTMLButtonElement | null)[]>([]);

  // A radio group: arrow keys move the choice, Tab leaves the group.
  function onKeyDown(event: KeyboardEvent<HTMLButtonElement>, index: number) {
    const step = event.key === "ArrowRight" || event.key === "ArrowDown" ? 1 : event.key === "ArrowLeft" || event.key === "ArrowUp" ? -1 : 0;
    if (step === 0) return;
    event.preventDefault();
    const next = (index + step + OPTIONS.length) % OPTIONS.length;
    const option = OPTIONS[next];
    if (!option) return;
    payerStore.set(option.mode);
    buttons.current[next]?.focus();
  }

  const selected = OPTIONS.find((option) => option.mode === value);
  return (
    <div>
      <div role="radiogroup" aria-labelledby="payer-heading" className="segmented">
        {OPTIONS.map((option, index) => (
          <button
            key={option.mode}
            ref={(element) => {
              buttons.current[index] = element;
            }}
            type="button"
            role="radio"
            aria-checked={value === option.mode}
            tabIndex={value === option.mode ? 0 : -1}
            className="segmented__option"
            data-testid={option.testId}
            onClick={() => payerStore.set(option.mode)}
            onKeyDown={(event) => onKeyDown(event, index)}
          >
            {option.label}
          </button>
        ))}
      </div>
      <p className="small muted">{selected?.description}</p>
    </div>
  );
}
