/**
 * What the grant card asks and says: the amount typed (USDC, at most 6 decimals, read without
 * floats), the expiry choices, and the sentence that says what signing allows.
 */
import { formatUsdc, parseUsdc } from "../money";

/** A grant lasts at most a day (the server's bound; see docs/grants.md). */
export const GRANT_EXPIRY_CHOICES = [
  { label: "1 h", seconds: 3_600 },
  { label: "8 h", seconds: 8 * 3_600 },
  { label: "24 h", seconds: 24 * 3_600 },
] as const;

export type GrantAmountInput = { ok: true; amount: bigint; text: string } | { ok: false; problem: string };

export function parseGrantAmount(text: string): GrantAmountInput {
  const trimmed = text.trim();
  if (trimmed === "") return { ok: false, problem: "Enter how much the agent may spend, such as 0.05." };
  if (/^\d*\.\d{7,}$/.test(trimmed)) return { ok: false, problem: "USDC has 6 decimals: use at most 6 digits after the point." };
  const amount = parseUsdc(trimmed);
  if (amount === undefined) return { ok: false, problem: "Enter a USDC amount such as 0.05 (digits, at most 6 decimals)." };
  if (amount <= 0n) return { ok: false, problem: "Enter an amount above zero." };
  return { ok: true, amount, text: formatUsdc(amount) };
}

/** A time of day as the person's browser writes it, with the date when it is not today. */
export function formatUntil(until: Date, now: Date): string {
  const time = until.toLocaleTimeString(undefined, { hour: "2-digit", minute: "2-digit" });
  return until.toDateString() === now.toDateString() ? time : `${until.toLocaleDateString(undefined, { weekday: "short" })} ${time}`;
}

/** What signing the grant allows, in one sentence a person can check before signing. */
export function describeGrant(amount: bigint, until: string): string {
  return (
    `The agent pays services from your wallet without asking you, up to ${formatUsdc(amount)} USDC in all until ${until}. ` +
    "Permit2 enforces both on chain, so not even this server can take more or later; you can revoke it any time."
  );
}

/** Why a grant this tab held stopped paying, for the sentence the panel keeps. */
export function describeGrantEnd(state: "expired" | "revoked" | "replaced" | "refused" | "unknown"): string {
  const after = "Payments from your wallet ask for your approval again.";
  switch (state) {
    case "revoked":
      return `The grant was revoked. ${after}`;
    case "expired":
      return `The grant expired. ${after}`;
    case "replaced":
      return `A newer grant of this wallet replaced it. ${after}`;
    case "refused":
      return `The grant ended: the chat refused to pay under it (revoked, replaced or expired). Nothing was paid. ${after}`;
    case "unknown":
      return `The grant is no longer known to the server. ${after}`;
  }
}
