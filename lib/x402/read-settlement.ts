/**
 * Reads the settlement a paid service reports in `PAYMENT-RESPONSE` (v2) or
 * `X-PAYMENT-RESPONSE` (v1). The hash and the charged amount are validated; anything else the
 * service says is ignored.
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
  /**
   * What was charged, in base units: the `upto` scheme's settlement names the actual amount
   * (at most the signed ceiling; "0" with no transaction when nothing was used). A claim until
   * the chain shows the transfer.
   */
  amount: z
    .string()
    .regex(/^\d{1,30}$/)
    .transform((value) => BigInt(value))
    .optional()
    .catch(undefined),
});
export type Settlement = z.infer<typeof Settlement>;

/** The settlement header, decoded but unchecked; undefined when absent or not decodable. */
export function decodeSettlementHeader(headers: Headers): unknown {
  const header = headers.get("PAYMENT-RESPONSE") ?? headers.get("X-PAYMENT-RESPONSE");
  if (!header) return undefined;
  try {
    return decodePaymentResponseHeader(header);
  } catch {
    return undefined;
  }
}

export function readSettlement(headers: Headers): Settlement | undefined {
  return parseSettlement(decodeSettlementHeader(headers));
}

/** A settlement as a transport hands it over (decoded from a header, or an MCP result's `_meta`), validated. */
export function parseSettlement(value: unknown): Settlement | undefined {
  const parsed = Settlement.safeParse(value);
  return parsed.success ? parsed.data : undefined;
}
