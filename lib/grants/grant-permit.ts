/**
 * A grant's permit: the Permit2 AllowanceTransfer `PermitSingle` a user signs once to let the
 * agent's relayer pull at most `amount` of the network's USDC until `expiration`. Permit2
 * itself bounds every later pull by that amount and expiry, whatever this server does.
 *
 * The typed data is JSON (integers as decimal strings), so any EIP-712 signer can sign it as
 * it arrives: viem's `signTypedData`, a browser wallet, `npm run sign-grant`.
 */
import { getAddress } from "viem";
import { z } from "zod";

/**
 * Uniswap's Permit2, at its canonical address on every chain (the local world places it there
 * too). Written out rather than imported from `@x402/evm`, which a browser page should not
 * load for one constant; grant-permit.test.ts checks the two agree.
 */
export const PERMIT2 = getAddress("0x000000000022D473030F116dDEE9F6B43aC78BA3");

/** Permit2's AllowanceTransfer types (IAllowanceTransfer.sol, PermitHash.sol). */
export const PERMIT_SINGLE_TYPES = {
  PermitDetails: [
    { name: "token", type: "address" },
    { name: "amount", type: "uint160" },
    { name: "expiration", type: "uint48" },
    { name: "nonce", type: "uint48" },
  ],
  PermitSingle: [
    { name: "details", type: "PermitDetails" },
    { name: "spender", type: "address" },
    { name: "sigDeadline", type: "uint256" },
  ],
} as const;

const address = z.string().regex(/^0x[0-9a-fA-F]{40}$/, "an address (0x and 40 hex digits)");
const decimal = (maxDigits: number) => z.union([z.string().regex(new RegExp(`^\\d{1,${maxDigits}}$`)), z.number().int().nonnegative()]).transform(BigInt);
const field = (name: string, type: string) => z.object({ name: z.literal(name), type: z.literal(type) }).strict();

/** What a client sends back: the typed data it was given, every field checked again. */
export const GrantTypedData = z
  .object({
    domain: z.object({ name: z.literal("Permit2"), chainId: z.number().int().positive(), verifyingContract: address }).strict(),
    types: z
      .object({
        PermitDetails: z.tuple([field("token", "address"), field("amount", "uint160"), field("expiration", "uint48"), field("nonce", "uint48")]),
        PermitSingle: z.tuple([field("details", "PermitDetails"), field("spender", "address"), field("sigDeadline", "uint256")]),
        // A wallet may echo the domain's own type; it changes nothing in the hash.
        EIP712Domain: z
          .array(z.object({ name: z.string(), type: z.string() }))
          .max(5)
          .optional(),
      })
      .strict(),
    primaryType: z.literal("PermitSingle"),
    message: z
      .object({
        details: z.object({ token: address, amount: decimal(49), expiration: decimal(15), nonce: decimal(15) }).strict(),
        spender: address,
        sigDeadline: decimal(20),
      })
      .strict(),
  })
  .strict();
export type GrantTypedData = z.input<typeof GrantTypedData>;

/** A permit's terms, read and normalised (checksummed addresses, bigints). */
export type GrantPermit = {
  chainId: number;
  token: `0x${string}`;
  amount: bigint;
  /** Unix seconds: Permit2 lets the spender pull until then. */
  expiration: bigint;
  nonce: bigint;
  spender: `0x${string}`;
  /** Unix seconds: the signature itself is good until then. */
  sigDeadline: bigint;
};

/** The typed data of a permit, as handed to the user's wallet. */
export function grantTypedData(permit: GrantPermit): GrantTypedData {
  return {
    domain: { name: "Permit2", chainId: permit.chainId, verifyingContract: PERMIT2 },
    types: { PermitDetails: [...PERMIT_SINGLE_TYPES.PermitDetails], PermitSingle: [...PERMIT_SINGLE_TYPES.PermitSingle] },
    primaryType: "PermitSingle",
    message: {
      details: { token: permit.token, amount: permit.amount.toString(), expiration: permit.expiration.toString(), nonce: permit.nonce.toString() },
      spender: permit.spender,
      sigDeadline: permit.sigDeadline.toString(),
    },
  };
}

/** The permit a typed data describes; undefined when it is not a Permit2 PermitSingle on Permit2. */
export function readGrantTypedData(value: unknown): { permit: GrantPermit; verifyingContract: `0x${string}` } | undefined {
  const parsed = GrantTypedData.safeParse(value);
  if (!parsed.success) return undefined;
  const { domain, message } = parsed.data;
  return {
    verifyingContract: getAddress(domain.verifyingContract),
    permit: {
      chainId: domain.chainId,
      token: getAddress(message.details.token),
      amount: message.details.amount,
      expiration: message.details.expiration,
      nonce: message.details.nonce,
      spender: getAddress(message.spender),
      sigDeadline: message.sigDeadline,
    },
  };
}

/** What viem's typed-data functions take (bigints where the types say integers). */
export function viemGrantTypedData(permit: GrantPermit) {
  return {
    domain: { name: "Permit2", chainId: permit.chainId, verifyingContract: PERMIT2 },
    types: PERMIT_SINGLE_TYPES,
    primaryType: "PermitSingle" as const,
    message: {
      details: { token: permit.token, amount: permit.amount, expiration: Number(permit.expiration), nonce: Number(permit.nonce) },
      spender: permit.spender,
      sigDeadline: permit.sigDeadline,
    },
  };
}
