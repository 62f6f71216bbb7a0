/**
 * Reads the settlement a paid service reports in `PAYMENT-RESPONSE` (v2) or
 * `X-PAYMENT-RESPONSE` (v1). The hash is validated; anything else the service says is ignored.
 */
import { decodePaymentResponseHeader } from "@x402/core/http";
import { z } from "zod";

const Settlement = z.looseObject({
  success: z.boolean(),
  transaction: z
    .string()
    .regex(/^0x[0-9a-fA-F]{64}$/)
    .transform((value) => value as `0x${string}`)
    .optional()
    .catch(undefined),
  network: z.string().optional().catch(undefined),
  payer: z.string().optional().catch(undefined),
  errorReason: z.string().max(200).optional().catch(undefined),
});
export type Settlement = z.infer<typeof Settlement>;

export function readSettlement(headers: Headers): Settlement | undefined {
  const header = headers.get("PAYMENT-RESPONSE") ?? headers.get("X-PAYMENT-RESPONSE");
  if (!header) return undefined;
  try {
    const parsed = Settlement.safeParse(decodePaymentResponseHeader(header));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}
