/** The small wire types every stream schema shares (browser and server). */
import { z } from "zod";

export const hexString = z.string().regex(/^0x[0-9a-fA-F]*$/, "expected a 0x-prefixed hex string");
export const Address = z.string().regex(/^0x[0-9a-fA-F]{40}$/, "expected a 20-byte hex address");
export const TxHash = z.string().regex(/^0x[0-9a-fA-F]{64}$/, "expected a 32-byte hex hash");
/** A USDC amount as a decimal string with at most 6 decimals, e.g. "0.05". */
export const UsdcDecimal = z.string().regex(/^\d+(\.\d{1,6})?$/, "expected a decimal USDC amount");
