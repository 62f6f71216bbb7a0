/**
 * USDC amounts. Inside the service money is always a `bigint` of base units (6 decimals);
 * decimal strings exist only at the edges (requests, stream events, display).
 */
export const USDC_DECIMALS = 6;
const UNIT = 10n ** BigInt(USDC_DECIMALS);
const DECIMAL_PATTERN = /^(\d{1,15})(?:\.(\d{1,6}))?$/;

/** Parses "1.5", "0.000001" or a finite number into base units; undefined when invalid. */
export function parseUsdc(value: string | number): bigint | undefined {
  let text: string;
  if (typeof value === "number") {
    if (!Number.isFinite(value) || value < 0) return undefined;
    text = String(value);
  } else {
    text = value.trim();
  }
  const match = DECIMAL_PATTERN.exec(text);
  if (!match?.[1]) return undefined;
  const fraction = (match[2] ?? "").padEnd(USDC_DECIMALS, "0");
  return BigInt(match[1]) * UNIT + BigInt(fraction);
}

/** Formats base units as a decimal string with no trailing zeros ("0.05", "5"). */
export function formatUsdc(amount: bigint): string {
  const negative = amount < 0n;
  const absolute = negative ? -amount : amount;
  const whole = absolute / UNIT;
  const fraction = (absolute % UNIT).toString().padStart(USDC_DECIMALS, "0").replace(/0+$/, "");
  return `${negative ? "-" : ""}${whole}${fraction ? `.${fraction}` : ""}`;
}
