/**
 * How much of a 402's `extensions` a payment may echo back (lib/x402/echo-extensions.ts decides
 * what is echoed, server side). Browser-safe: the same bounds check the echo a user's approval
 * carries on its way to the browser and back in the PAYMENT-SIGNATURE header, so what the server
 * froze and what it accepts back are held to one rule. It lives with the stream because the
 * approval request (approval-request.ts) carries the echo on the wire.
 */
import { z } from "zod";
import { withinJsonLimits } from "../json-limits";

/** Extensions echoed at most (the 402 declares a handful; a flood is not sent back). */
export const MAX_ECHOED_EXTENSIONS = 16;
/** JSON characters all echoed extensions may take together: the payment header must stay small. */
export const ECHO_BUDGET_CHARS = 8_192;

/**
 * An extension's value as the JSON text that is echoed (its length, with its key's, is what it
 * costs of ECHO_BUDGET_CHARS); undefined when it cannot be echoed at all (too deep or too large
 * for the 402 limits, or not JSON).
 */
export function echoText(value: unknown): string | undefined {
  return withinJsonLimits(value) ? JSON.stringify(value) : undefined;
}

/** True when `extensions` is an echo the bounds allow: few enough, each bounded, within the budget together. */
export function withinEchoBounds(extensions: Record<string, unknown>): boolean {
  const entries = Object.entries(extensions);
  if (entries.length > MAX_ECHOED_EXTENSIONS) return false;
  let total = 0;
  for (const [key, value] of entries) {
    const text = echoText(value);
    if (text === undefined) return false;
    total += key.length + text.length;
    if (total > ECHO_BUDGET_CHARS) return false;
  }
  return true;
}

/** Echoed extensions as they travel in an approval and in its PAYMENT-SIGNATURE header. */
export const EchoedExtensions = z
  .record(z.string(), z.unknown())
  .refine(withinEchoBounds, { message: `at most ${MAX_ECHOED_EXTENSIONS} extensions of ${ECHO_BUDGET_CHARS} JSON characters together, each bounded` });
export type EchoedExtensions = z.infer<typeof EchoedExtensions>;

/** Longest `description` and `mimeType` of a 402's `resource` echoed back (a stranger's text, sent in a header). */
const MAX_RESOURCE_DESCRIPTION_CHARS = 512;
const MAX_RESOURCE_MIME_TYPE_CHARS = 128;

/**
 * What a v2 payment echoes of the 402's `resource` besides its URL, as the official client
 * echoes the whole object: the spec's `description` and `mimeType`, each bounded. A user's
 * approval carries it to the browser and back, so it is held to one schema both ways.
 */
export const EchoedResourceInfo = z.strictObject({
  description: z.string().max(MAX_RESOURCE_DESCRIPTION_CHARS).optional(),
  mimeType: z.string().max(MAX_RESOURCE_MIME_TYPE_CHARS).optional(),
});
export type EchoedResourceInfo = z.infer<typeof EchoedResourceInfo>;

/** The echoable `description` and `mimeType` of a 402's `resource`; undefined when it has neither (or they are too long). */
export function resourceInfoOf(resource: unknown): EchoedResourceInfo | undefined {
  if (!resource || typeof resource !== "object") return undefined;
  const { description, mimeType } = resource as Record<string, unknown>;
  const info: EchoedResourceInfo = {};
  if (typeof description === "string" && description.length <= MAX_RESOURCE_DESCRIPTION_CHARS) info.description = description;
  if (typeof mimeType === "string" && mimeType.length <= MAX_RESOURCE_MIME_TYPE_CHARS) info.mimeType = mimeType;
  return info.description === undefined && info.mimeType === undefined ? undefined : info;
}
