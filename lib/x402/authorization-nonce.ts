import "server-only";
/**
 * EIP-3009 nonces derived with an HMAC instead of drawn at random. The nonce binds every term
 * of a payment (payer, payee, amount, token, network, resource, validity window, intent, body,
 * the extensions echoed to the service), so the server can later check a signed payment against
 * its own quote without storing the quote, and one intent can never produce two different valid
 * authorizations: the token contract refuses a nonce it has seen.
 */
import { createHmac } from "node:crypto";
import type { PayableRequirement } from "./payment-requirements";
import { DEFAULT_CONTENT_TYPE } from "./request-body";

export type NonceTerms = {
  payer: string;
  payTo: string;
  amount: bigint;
  asset: string;
  network: string;
  chainId: number;
  resource: string;
  method: string;
  validAfter: bigint;
  validBefore: bigint;
  /** The exact requirement object the service offered, canonicalised. */
  requirements: Record<string, unknown>;
  /** What the payment is for, e.g. a tool call id; empty for user approvals. */
  intent: string;
  /** The exact body the paid request sends, when it sends one: the payment is for that body. */
  body?: string;
  /** The body's content type as sent (JSON when not named); ignored without a body. */
  contentType?: string;
  /** The 402's extensions the payment echoes to the service (echo-extensions.ts), when it echoes any. */
  extensions?: Record<string, unknown>;
  /** The 402's resource description and MIME type the payment echoes (v2), when it echoes any. */
  resourceInfo?: { description?: string; mimeType?: string };
};

/** Deeper than this is refused: callers bound what they pass (see lib/json-limits.ts); this is the backstop. */
const MAX_CANONICAL_DEPTH = 32;

/**
 * Stable JSON: object keys sorted at every depth, so equal values give equal text.
 *
 * @throws TypeError for values nested deeper than 32 levels.
 */
export function canonicalJson(value: unknown, depth = 0): string {
  if (depth > MAX_CANONICAL_DEPTH) throw new TypeError("value is nested too deeply for canonical JSON");
  if (Array.isArray(value)) return `[${value.map((item) => canonicalJson(item, depth + 1)).join(",")}]`;
  if (value && typeof value === "object") {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, item]) => item !== undefined)
      .sort(([left], [right]) => (left < right ? -1 : left > right ? 1 : 0));
    return `{${entries.map(([key, item]) => `${JSON.stringify(key)}:${canonicalJson(item, depth + 1)}`).join(",")}}`;
  }
  if (typeof value === "bigint") return JSON.stringify(value.toString());
  return JSON.stringify(value) ?? "null";
}

export function deriveAuthorizationNonce(secret: string, terms: NonceTerms): `0x${string}` {
  const message = canonicalJson({
    version: 1,
    payer: terms.payer.toLowerCase(),
    payTo: terms.payTo.toLowerCase(),
    amount: terms.amount,
    asset: terms.asset.toLowerCase(),
    network: terms.network,
    chainId: terms.chainId,
    resource: terms.resource,
    method: terms.method.toUpperCase(),
    validAfter: terms.validAfter,
    validBefore: terms.validBefore,
    requirements: terms.requirements,
    intent: terms.intent,
    // Absent for a request without a body, so such nonces are as before.
    body: terms.body,
    // The same bytes read as a form or as JSON are different requests: the type is paid for too.
    // What is bound is the type that goes on the wire, so "none named" and JSON are one quote.
    contentType: terms.body === undefined ? undefined : (terms.contentType ?? DEFAULT_CONTENT_TYPE),
    // What the service is told besides the payment (bazaar, payment-identifier, …) is a term too:
    // absent when nothing is echoed, so such nonces (and approvals already out) are as before.
    extensions: terms.extensions,
    // Absent when the 402's resource had neither: such nonces stay as before.
    resourceInfo: terms.resourceInfo,
  });
  return `0x${createHmac("sha256", secret).update(message).digest("hex")}`;
}

/** What a quote is for, as the server freezes it (request 1) and checks it (request 2). */
export type QuoteBinding = {
  payer: string;
  option: Pick<PayableRequirement, "payTo" | "amount" | "asset" | "network" | "requirements">;
  chainId: number;
  url: string;
  method: string;
  validAfter: bigint;
  validBefore: bigint;
  /** A tool call id for the agent wallet; empty for a user's approval, which the user makes. */
  intent: string;
  body?: string;
  contentType?: string;
  extensions?: Record<string, unknown>;
  resourceInfo?: { description?: string; mimeType?: string };
};

/** The one place a quote's terms become its nonce: freezing and verifying cannot drift apart. */
export function quoteNonce(secret: string, quote: QuoteBinding): `0x${string}` {
  return deriveAuthorizationNonce(secret, {
    payer: quote.payer,
    payTo: quote.option.payTo,
    amount: quote.option.amount,
    asset: quote.option.asset,
    network: quote.option.network,
    chainId: quote.chainId,
    resource: quote.url,
    method: quote.method,
    validAfter: quote.validAfter,
    validBefore: quote.validBefore,
    requirements: quote.option.requirements,
    intent: quote.intent,
    body: quote.body,
    contentType: quote.contentType,
    extensions: quote.extensions,
    resourceInfo: quote.resourceInfo,
  });
}
