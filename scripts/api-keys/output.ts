/**
 * What `npm run api-keys` prints: pure functions of the keys, so the wording and the table
 * are tested without a database. Amounts are shown in USDC, times in UTC.
 */
import type { ApiKeyRecord } from "../../lib/access/api-keys";
import { formatUsdc } from "../../lib/money";

/** "2026-01-01 12:00 UTC": to the minute, which is as precise as an operator needs. */
export function formatTime(at: number): string {
  return `${new Date(at).toISOString().slice(0, 16).replace("T", " ")} UTC`;
}

function budgetLine(key: ApiKeyRecord): string {
  const { perPayment, perRequest, daily } = key.budget;
  return `${formatUsdc(perPayment)} USDC per payment, ${formatUsdc(perRequest)} USDC per request, ${formatUsdc(daily)} USDC per day`;
}

/** The report of `create`, with the token, which is shown here and never again. */
export function formatCreated(key: ApiKeyRecord, token: string): string {
  return [
    `Created API key ${key.id} (${key.name})`,
    `  budget:       ${budgetLine(key)}`,
    `  agent wallet: ${key.agentWallet ? "yes (may make the agent wallet pay)" : "no"}`,
    `  expires:      ${key.expiresAt === null ? "never" : formatTime(key.expiresAt)}`,
    "",
    "Token (it cannot be shown again: only a hash of it is stored):",
    token,
    "",
    'Send it as the header "Authorization: Bearer <token>".',
  ].join("\n");
}

const COLUMNS = ["ID", "NAME", "PER PAYMENT", "PER REQUEST", "DAILY", "AGENT WALLET", "CREATED", "EXPIRES", "REVOKED"] as const;

/** Every key as a table, newest first as given; amounts in USDC. */
export function formatList(keys: ApiKeyRecord[], now: number): string {
  if (keys.length === 0)
    return "No API keys yet. Make one with: npm run api-keys -- create --name <name> --per-payment <USDC> --per-request <USDC> --daily <USDC>";
  const rows = keys.map((key) => [
    key.id,
    key.name,
    formatUsdc(key.budget.perPayment),
    formatUsdc(key.budget.perRequest),
    formatUsdc(key.budget.daily),
    key.agentWallet ? "yes" : "no",
    formatTime(key.createdAt),
    key.expiresAt === null ? "never" : `${formatTime(key.expiresAt)}${key.expiresAt <= now ? " (expired)" : ""}`,
    key.revokedAt === null ? "-" : formatTime(key.revokedAt),
  ]);
  const widths = COLUMNS.map((title, column) => Math.max(title.length, ...rows.map((row) => row[column]!.length)));
  const line = (cells: readonly string[]) =>
    cells
      .map((cell, column) => cell.padEnd(widths[column]!))
      .join("  ")
      .trimEnd();
  return [line(COLUMNS), ...rows.map(line)].join("\n");
}

/** The report of `revoke`; whether it counts as success is the caller's (see run-command.ts). */
export function formatRevoked(id: string, outcome: "revoked" | "already-revoked" | "not-found"): string {
  switch (outcome) {
    case "revoked":
      return `Revoked API key ${id}: it stops working at once.`;
    case "already-revoked":
      return `API key ${id} was already revoked.`;
    case "not-found":
      return `No API key has the id ${id} (see: npm run api-keys -- list).`;
  }
}
