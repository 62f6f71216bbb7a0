import "server-only";
/**
 * The `extensions` of a v2 payment payload, as the official client builds them
 * (`x402Client.createPaymentPayload` in @x402/core: `mergeExtensions(paymentRequired.extensions,
 * clientExtensions)`): every extension the service's 402 declared is echoed back, and the
 * client's own additions are merged in. The bazaar spec relies on it: a client echoes `bazaar`
 * so the facilitator can catalogue the service. Our one addition is the intent's
 * `payment-identifier` id (payment-identifier.ts), which replaces the service's bare
 * declaration of that extension.
 *
 * Unlike the official client, the echo is bounded: the declarations are a stranger's JSON, sent
 * back inside a request header. An extension that nests deeper or holds more than the 402 limits
 * allow (lib/json-limits.ts), or that would take the echo past ECHO_BUDGET_CHARS of JSON, is NOT
 * echoed (left out, never truncated); neither is anything past MAX_ECHOED_EXTENSIONS. Our own
 * payment-identifier entry is counted first, so it is always there when the service declared it.
 */
import { PAYMENT_IDENTIFIER } from "@x402/extensions/payment-identifier";
import { z } from "zod";
import { ECHO_BUDGET_CHARS, echoText, MAX_ECHOED_EXTENSIONS } from "../stream/extension-echo-bounds";
import { paymentIdentifierExtensions } from "./payment-identifier";

const V2WithExtensions = z.object({ x402Version: z.literal(2), extensions: z.record(z.string(), z.unknown()) });

/**
 * What a v2 payment payload's `extensions` carries for a 402 (its parsed `PAYMENT-REQUIRED`):
 * the declared extensions echoed (bounded), with our payment identifier where the service
 * declared that extension; undefined when there is nothing to send (v1, or no extensions).
 *
 * @example
 * echoedExtensions({ x402Version: 2, accepts, extensions: { bazaar, "payment-identifier": declared } }, "pay_…");
 * // { bazaar, "payment-identifier": { ...declared, info: { required: false, id: "pay_…" } } }
 */
export function echoedExtensions(paymentRequired: unknown, paymentIdentifier: string | undefined): Record<string, unknown> | undefined {
  const parsed = V2WithExtensions.safeParse(paymentRequired);
  if (!parsed.success) return undefined;
  const entries: [string, unknown][] = [];
  let budget = ECHO_BUDGET_CHARS;
  const take = (key: string, value: unknown): void => {
    if (entries.length >= MAX_ECHOED_EXTENSIONS) return;
    const text = echoText(value);
    if (text === undefined || key.length + text.length > budget) return;
    budget -= key.length + text.length;
    // A copy made from the text already measured: what is sent is not the 402's object.
    entries.push([key, JSON.parse(text) as unknown]);
  };
  // Ours first: the service's declaration with the intent's id added (bounded there).
  const ours = paymentIdentifierExtensions(paymentRequired, paymentIdentifier);
  if (ours) take(PAYMENT_IDENTIFIER, ours[PAYMENT_IDENTIFIER]);
  for (const [key, value] of Object.entries(parsed.data.extensions)) {
    if (ours && key === PAYMENT_IDENTIFIER) continue;
    take(key, value);
  }
  // fromEntries defines own properties: a declared "__proto__" stays a plain key.
  return entries.length > 0 ? Object.fromEntries(entries) : undefined;
}
