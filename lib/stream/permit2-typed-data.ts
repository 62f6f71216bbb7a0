/**
 * The EIP-712 typed data of an x402 `upto` permit (a Permit2 `PermitWitnessTransferFrom`), as a
 * wallet signs it: JSON, integers as decimal strings. Browser-safe, so the stream's approval
 * schema and the page's signer read the same shape the server builds (lib/x402/upto-permit2.ts).
 */
import { z } from "zod";
import { Address } from "./wire-primitives";

const uint256 = z.string().regex(/^\d{1,78}$/);
const fields = z.array(z.object({ name: z.string(), type: z.string() }));

export const Permit2WitnessTypedData = z.object({
  domain: z.object({ name: z.literal("Permit2"), chainId: z.number().int().positive(), verifyingContract: Address }),
  types: z.object({ PermitWitnessTransferFrom: fields, TokenPermissions: fields, Witness: fields }),
  primaryType: z.literal("PermitWitnessTransferFrom"),
  message: z.object({
    permitted: z.object({ token: Address, amount: uint256 }),
    spender: Address,
    nonce: uint256,
    deadline: uint256,
    witness: z.object({ to: Address, facilitator: Address, validAfter: uint256 }),
  }),
});
export type Permit2WitnessTypedData = z.infer<typeof Permit2WitnessTypedData>;
