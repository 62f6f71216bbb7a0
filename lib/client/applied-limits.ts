/**
 * What the page says about the limits a request ran under, read from the server's
 * `X-Spending-Limits` header, e.g. `per-payment=0.5 (budget), per-request=1 (budget), daily=5
 * (budget); clamped=daily`. Only a change is worth a line: limits the person asked for that
 * the server lowered to what the caller may spend.
 */
const ENTRY = /^(per-payment|per-request|daily)=([0-9.]{1,40}) \(([a-z ]{1,20})\)$/;
const SOURCES: Record<string, string> = { budget: "your budget", "server cap": "the server's cap", "wallet cap": "the agent wallet's daily cap" };

export function describeAppliedLimits(header: string | null): string | undefined {
  if (!header || header.length > 400) return undefined;
  const [values = "", clampedPart] = header.split("; clamped=");
  if (!clampedPart) return undefined;
  const limits = new Map<string, { amount: string; source: string }>();
  for (const entry of values.split(", ")) {
    const match = ENTRY.exec(entry);
    if (match) limits.set(match[1]!, { amount: match[2]!, source: match[3]! });
  }
  const lowered = clampedPart
    .split(",")
    .map((name) => ({ name, limit: limits.get(name) }))
    .filter((entry): entry is { name: string; limit: { amount: string; source: string } } => entry.limit !== undefined)
    .map(({ name, limit }) => `${name} ${limit.amount} USDC (${SOURCES[limit.source] ?? limit.source})`);
  return lowered.length > 0 ? `Your limits were lowered to what you may spend: ${lowered.join(", ")}.` : undefined;
}
