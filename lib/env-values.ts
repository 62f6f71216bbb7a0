/** The value types of the environment's variables (lib/env.ts): each parses a string and says what it expected. */
import { getAddress, isAddress } from "viem";
import { z } from "zod";
import { parseUsdc } from "./money";

export const usdcAmount = z
  .string()
  .refine((value) => parseUsdc(value) !== undefined, "expected a USDC amount such as 1 or 0.25 (at most 6 decimals)")
  .transform((value) => parseUsdc(value) as bigint);

export const privateKey = z
  .string()
  .regex(/^0x[0-9a-fA-F]{64}$/, "expected a 0x-prefixed 32-byte hex private key")
  .transform((value) => value as `0x${string}`);

export const flag = z.enum(["true", "false", "1", "0"]).transform((value) => value === "true" || value === "1");

/** Comma-separated 0x addresses, kept lowercase for comparison. */
export const addressList = z
  .string()
  .transform((value) =>
    value
      .split(",")
      .map((item) => item.trim())
      .filter(Boolean),
  )
  .refine((items) => items.every((item) => /^0x[0-9a-fA-F]{40}$/.test(item)), "expected comma-separated 0x addresses")
  .transform((items) => items.map((item) => item.toLowerCase() as `0x${string}`));

/** An origin: http(s), a host, maybe a port, nothing after it. */
export const appUrl = z
  .url()
  .refine((value) => {
    const url = new URL(value);
    return (url.protocol === "https:" || url.protocol === "http:") && !url.username && !url.password && url.pathname === "/" && !url.search && !url.hash;
  }, "expected the app's origin only, e.g. https://agent.example.com (no path, query or credentials)")
  .transform((value) => new URL(value).origin);

/** An EIP-155 chain id, in decimal. */
export const chainId = z
  .string()
  .regex(/^[1-9]\d{0,15}$/, "expected a positive decimal chain id such as 8453")
  .transform(Number)
  .refine(Number.isSafeInteger, "expected a chain id below 2^53");

/** A contract address; mixed case must carry a valid checksum (a typo is refused, not paid to). */
export const contractAddress = z
  .string()
  .refine((value) => isAddress(value, { strict: true }), "expected a 0x-prefixed 20-byte hex address (mixed case only with a valid checksum)")
  .transform((value) => getAddress(value));

export const httpUrl = z.url({ protocol: /^https?$/, error: "expected an http:// or https:// URL" });

/** A block explorer's base: `/tx/<hash>` is appended, so no query, fragment or credentials. */
export const explorerUrl = httpUrl
  .refine((value) => {
    const url = new URL(value);
    return !url.username && !url.password && !url.search && !url.hash;
  }, "expected an explorer base such as https://basescan.org (no query, fragment or credentials)")
  .transform((value) => value.replace(/\/+$/, ""));

/** A name shown to people and to the model: one short line of printable text. */
export const networkLabel = z
  .string()
  .trim()
  .min(1)
  .max(48, "must be at most 48 characters")
  .regex(/^[^\p{Cc}\p{Cf}]+$/u, "expected printable text");

export function integer(min: number, max: number, fallback: number) {
  return z.coerce.number().int().min(min).max(max).default(fallback);
}

export function temperature(fallback: number) {
  return z.coerce.number().min(0).max(1).default(fallback);
}
