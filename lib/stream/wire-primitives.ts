/** The small wire types the stream schemas share (browser and server). */
import { z } from "zod";

export const hexString = z.string().regex(/^0x[0-9a-fA-F]*$/, "expected a 0x-prefixed hex string");
export const Address = z.string().regex(/^0x[0-9a-fA-F]{40}$/, "expected a 20-byte hex address");
export const TxHash = z.string().regex(/^0x[0-9a-fA-F]{64}$/, "expected a 32-byte hex hash");
/** A USDC amount as a decimal string with at most 6 decimals, e.g. "0.05". */
export const UsdcDecimal = z.string().regex(/^\d+(\.\d{1,6})?$/, "expected a decimal USDC amount");

/**
 * The content types a paid request's body may carry, by body type (lib/x402/request-body.ts
 * encodes them); an approval names one, so the stream's schema knows them.
 */
export const REQUEST_CONTENT_TYPES = {
  json: "application/json",
  "form-data": "application/x-www-form-urlencoded",
  text: "text/plain; charset=utf-8",
} as const;
export const RequestContentType = z.enum([REQUEST_CONTENT_TYPES.json, REQUEST_CONTENT_TYPES["form-data"], REQUEST_CONTENT_TYPES.text]);
export type RequestContentType = z.infer<typeof RequestContentType>;
