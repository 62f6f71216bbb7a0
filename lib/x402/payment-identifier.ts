import "server-only";
/**
 * The x402 `payment-identifier` extension, buyer side (docs/decisions.md, "Safe retries: the
 * payment identifier"). Every purchase intent gets one identifier, derived rather than drawn at
 * random: an HMAC of the at-most-once key under the deployment's quote secret. A retry of the
 * same intent (the same tool call again, a client retry with the same Idempotency-Key, a
 * restart) therefore sends the same identifier, and another intent never does. The HMAC also
 * keeps the key itself (which names the caller) away from the service.
 *
 * The identifier goes only to services whose 402 declares the extension: x402 v2 extensions are
 * advertised by the server and echoed by the client with its own info added (x402 v2 spec,
 * §5.1.2), and the SDK's `appendPaymentIdentifierToExtensions` does nothing for an undeclared one.
 */
import { createHmac } from "node:crypto";
import { appendPaymentIdentifierToExtensions, isPaymentIdentifierExtension, isValidPaymentId, PAYMENT_IDENTIFIER } from "@x402/extensions/payment-identifier";
import { z } from "zod";
import { AppError } from "../errors";
import { withinJsonLimits } from "../json-limits";

/** The spec recommends a `pay_` prefix; 32 hex characters (128 bits) follow it. */
const PREFIX = "pay_";
const HEX_CHARS = 32;
/** Separates this use of the quote secret from its others (nonces, receipts). */
const DOMAIN = "x402-agent/payment-identifier/v1";

/**
 * The payment identifier of one purchase intent.
 *
 * @example
 * paymentIdentifierFor(secret, "purchase:req-1:3f2a…"); // "pay_9c1e…" (36 characters, always the same for this key)
 */
export function paymentIdentifierFor(secret: string, purchaseKey: string): string {
  if (!secret) throw new AppError("internal", { details: "payment identifier: the quote secret is empty" });
  const digest = createHmac("sha256", secret).update(`${DOMAIN}\n${purchaseKey}`).digest("hex");
  const id = `${PREFIX}${digest.slice(0, HEX_CHARS)}`;
  // A format the spec refuses would make a service drop or reject it: fail here instead.
  if (!isValidPaymentId(id)) throw new AppError("internal", { details: "payment identifier: derived id is not valid" });
  return id;
}

const DeclaredExtensions = z.record(z.string(), z.unknown());

/**
 * The `extensions` of a payment payload for a 402 (its parsed `PAYMENT-REQUIRED`): the service's
 * own `payment-identifier` declaration with our id added, or undefined when the 402 does not
 * declare it (x402 v1, or a v2 service without the extension).
 */
export function paymentIdentifierExtensions(paymentRequired: unknown, id: string | undefined): Record<string, unknown> | undefined {
  if (id === undefined) return undefined;
  const parsed = z.object({ extensions: DeclaredExtensions.optional() }).safeParse(paymentRequired);
  const declared = parsed.success ? parsed.data.extensions?.[PAYMENT_IDENTIFIER] : undefined;
  // The declaration is the service's JSON, echoed back: bounded and shaped before we use it.
  if (!isPaymentIdentifierExtension(declared) || !withinJsonLimits(declared)) return undefined;
  // A copy: the SDK writes the id into the object it is given, and the 402 stays as it came.
  const echoed = { [PAYMENT_IDENTIFIER]: structuredClone(declared) };
  return appendPaymentIdentifierToExtensions(echoed, id);
}

/** The identifier a payload's extensions carry, if any (for outcomes and tests). */
export function paymentIdentifierIn(extensions: Record<string, unknown> | undefined): string | undefined {
  const extension = extensions?.[PAYMENT_IDENTIFIER];
  if (!isPaymentIdentifierExtension(extension)) return undefined;
  return typeof extension.info.id === "string" && isValidPaymentId(extension.info.id) ? extension.info.id : undefined;
}
