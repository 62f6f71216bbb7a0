/**
 * The bodies of the grant endpoints, checked at the edge. Amounts are USDC decimal strings as
 * everywhere else in the API; the typed data is checked field by field later (grant-bounds.ts).
 */
import { z } from "zod";
import { parseUsdc } from "../money";
import { MAX_GRANT_SECONDS } from "./grant-bounds";

const address = z.string().regex(/^0x[0-9a-fA-F]{40}$/, "must be an address (0x and 40 hex digits)");
const usdc = z
  .string()
  .max(32)
  .transform((value, context) => {
    const amount = parseUsdc(value);
    if (amount === undefined) context.addIssue({ code: "custom", message: 'must be a USDC amount such as "0.05" (at most 6 decimals)' });
    return amount ?? 0n;
  });

export const PrepareGrantBody = z
  .object({
    walletAddress: address,
    amount: usdc,
    /** Seconds from now; a day when left out, the longest a grant may last. */
    expiresInSeconds: z.number().int().optional().default(MAX_GRANT_SECONDS),
  })
  .strict();

export const CreateGrantBody = z
  .object({
    typedData: z.unknown(),
    signature: z.string().regex(/^0x[0-9a-fA-F]{130,4096}$/, "must be a hex signature"),
    /** Needed only for a contract wallet (ERC-1271), whose signature names no signer. */
    walletAddress: address.optional(),
  })
  .strict();
