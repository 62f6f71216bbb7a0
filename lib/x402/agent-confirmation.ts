import "server-only";
/**
 * The user's go-ahead for a payment the agent wallet would make to a URL that came neither
 * from discovery nor from the user's own words (a service's answer or a web page put it in
 * front of the model). Such a payment waits for the person, in the same two requests as a
 * wallet approval: request 1 streams a confirmation token; request 2 sends it back in the
 * `PAYMENT-APPROVAL` header, and only then does the agent contact the service and pay. The
 * address is not asked before the go-ahead (it may be a trap), so the person approves a
 * request and the most it may cost; the payee policy and every limit still apply after.
 *
 * The token is the approved terms and an HMAC over them with the quote secret, so the server
 * keeps no state and nobody can change a term (or mint a token) without the secret. It is
 * bound to the request it was issued for (the request key: the Idempotency-Key or the
 * conversation), so it cannot approve a payment in another conversation.
 */
import { createHmac, timingSafeEqual } from "node:crypto";
import { z } from "zod";
import { canonicalJson } from "./authorization-nonce";

export const ConfirmedTerms = z.strictObject({
  v: z.literal(1),
  requestKey: z.string().min(1).max(400),
  method: z.string().regex(/^[A-Z]{3,7}$/),
  url: z.string().max(2048),
  body: z.string().max(16_384).optional(),
  contentType: z.string().max(100).optional(),
  /** Base units: the most the agent wallet may pay for it (the per-payment limit when asked). */
  maxAmount: z.string().regex(/^\d{1,30}$/),
  /** Epoch seconds. */
  expiresAt: z.number().int().positive(),
});
export type ConfirmedTerms = z.infer<typeof ConfirmedTerms>;

const MAX_TOKEN_CHARS = 32_768;

export function createConfirmationToken(terms: ConfirmedTerms, secret: string): string {
  const payload = Buffer.from(canonicalJson(terms)).toString("base64url");
  return `${payload}.${sign(payload, secret)}`;
}

export type ConfirmationCheck = { ok: true; terms: ConfirmedTerms } | { ok: false; problem: "invalid" | "expired" | "other-request" };

/** The terms of a token this server issued for this request and that has not expired. */
export function readConfirmationToken(token: string, secret: string, expected: { requestKey: string; nowSeconds: number }): ConfirmationCheck {
  if (token.length > MAX_TOKEN_CHARS) return { ok: false, problem: "invalid" };
  const [payload, signature, ...rest] = token.trim().split(".");
  if (!payload || !signature || rest.length > 0) return { ok: false, problem: "invalid" };
  const expectedSignature = Buffer.from(sign(payload, secret));
  const given = Buffer.from(signature);
  if (given.length !== expectedSignature.length || !timingSafeEqual(given, expectedSignature)) return { ok: false, problem: "invalid" };
  let parsed: z.ZodSafeParseResult<ConfirmedTerms>;
  try {
    parsed = ConfirmedTerms.safeParse(JSON.parse(Buffer.from(payload, "base64url").toString("utf8")));
  } catch {
    return { ok: false, problem: "invalid" };
  }
  if (!parsed.success) return { ok: false, problem: "invalid" };
  if (parsed.data.expiresAt <= expected.nowSeconds) return { ok: false, problem: "expired" };
  if (parsed.data.requestKey !== expected.requestKey) return { ok: false, problem: "other-request" };
  return { ok: true, terms: parsed.data };
}

function sign(payload: string, secret: string): string {
  return createHmac("sha256", secret).update(`x402-agent:agent-confirmation:${payload}`).digest("base64url");
}
