/**
 * x402's `upto` scheme on EVM: the payer signs a Permit2 `PermitWitnessTransferFrom` for at
 * most a ceiling, spendable only by x402's upto proxy, only to the payee and only by the
 * facilitator named in the witness; the service settles what it used, at most that ceiling.
 * The typed data and the payment payload, built from a frozen quote, in the shapes of the
 * scheme's spec and of `@x402/evm`'s upto client. Pure: an agent wallet signs it here, and a
 * person's wallet can be handed the same typed data (it is JSON: integers as decimal strings).
 */
import { PERMIT2_ADDRESS, uptoPermit2WitnessTypes, x402UptoPermit2ProxyAddress } from "@x402/evm";
import { getAddress, recoverTypedDataAddress, type Hex } from "viem";
import { Permit2WitnessTypedData } from "../stream/permit2-typed-data";
import type { PaymentPayload, ResourceInfo } from "@x402/core/types";
import { acceptedRequirementsOf } from "./payment-payload";
import type { PayableRequirement } from "./payment-requirements";
import { uptoTermsOf } from "./schemes/upto-offer";

/** Permit2, at its canonical address on every chain (the local world places it there too). */
export const PERMIT2 = getAddress(PERMIT2_ADDRESS);
/** The only spender an upto permit names: x402's upto proxy (same address on every chain). */
export const UPTO_PROXY = getAddress(x402UptoPermit2ProxyAddress);

/** The EIP-712 typed data of an upto permit, as a wallet signs it (shared with the stream's approval). */
export const UptoPermitTypedData = Permit2WitnessTypedData;
export type UptoPermitTypedData = Permit2WitnessTypedData;

/** The permit's window and nonce: `deadline` is the last second it can be settled in. */
export type UptoPermitWindow = { validAfter: bigint; deadline: bigint; nonce: Hex };

/**
 * Permit2's nonce for a quote: the quote's own HMAC nonce read as a uint256. Permit2 nonces are
 * unordered (any uint256, each usable once per owner: a bit in `nonceBitmap[owner][nonce >> 8]`),
 * so no counter is read or kept; and since the HMAC binds every term of the quote, one frozen
 * quote yields one Permit2 nonce, and Permit2 settles at most one signature over it.
 *
 * @example
 * permit2NonceOf(`0x${"00".repeat(31)}ff`); // 255n
 */
export function permit2NonceOf(quoteNonce: Hex): bigint {
  if (!/^0x[0-9a-fA-F]{64}$/.test(quoteNonce)) throw new TypeError("a quote nonce is 32 bytes of hex");
  return BigInt(quoteNonce);
}

/** Where a Permit2 nonce's bit lives: the bitmap word and the bit in it. */
export function permit2NonceBit(nonce: bigint): { word: bigint; bit: bigint } {
  return { word: nonce >> 8n, bit: 1n << (nonce & 0xffn) };
}

/**
 * The typed data a wallet signs for an upto option: the ceiling is the option's `amount`, and
 * the facilitator its terms name (the only account the permit lets settle) is in the witness.
 */
export function buildUptoTypedData(option: PayableRequirement, chainId: number, window: UptoPermitWindow): UptoPermitTypedData {
  return {
    domain: { name: "Permit2", chainId, verifyingContract: PERMIT2 },
    types: {
      PermitWitnessTransferFrom: uptoPermit2WitnessTypes.PermitWitnessTransferFrom.map((field) => ({ ...field })),
      TokenPermissions: uptoPermit2WitnessTypes.TokenPermissions.map((field) => ({ ...field })),
      Witness: uptoPermit2WitnessTypes.Witness.map((field) => ({ ...field })),
    },
    primaryType: "PermitWitnessTransferFrom",
    message: {
      permitted: { token: getAddress(option.asset), amount: option.amount.toString() },
      spender: UPTO_PROXY,
      nonce: permit2NonceOf(window.nonce).toString(),
      deadline: window.deadline.toString(),
      witness: { to: getAddress(option.payTo), facilitator: getAddress(uptoTermsOf(option).facilitator), validAfter: window.validAfter.toString() },
    },
  };
}

/** The typed data in the form viem's signers and verifiers take (bigints). */
export function toViemUptoTypedData(typedData: UptoPermitTypedData) {
  const { message } = typedData;
  return {
    domain: { ...typedData.domain, verifyingContract: typedData.domain.verifyingContract as `0x${string}` },
    types: typedData.types,
    primaryType: "PermitWitnessTransferFrom" as const,
    message: {
      permitted: { token: message.permitted.token as `0x${string}`, amount: BigInt(message.permitted.amount) },
      spender: message.spender as `0x${string}`,
      nonce: BigInt(message.nonce),
      deadline: BigInt(message.deadline),
      witness: {
        to: message.witness.to as `0x${string}`,
        facilitator: message.witness.facilitator as `0x${string}`,
        validAfter: BigInt(message.witness.validAfter),
      },
    },
  };
}

/** The address that signed an upto permit, or undefined for a malformed signature. */
export async function recoverUptoSigner(typedData: UptoPermitTypedData, signature: Hex): Promise<`0x${string}` | undefined> {
  try {
    return await recoverTypedDataAddress({ ...toViemUptoTypedData(typedData), signature });
  } catch {
    return undefined;
  }
}

/**
 * The x402 v2 payment payload of a signed upto permit (the scheme is v2 only): the accepted
 * requirement echoed as the service sent it, and `permit2Authorization` as the spec names it.
 */
export function buildUptoPaymentPayload(
  option: PayableRequirement,
  resource: ResourceInfo | undefined,
  typedData: UptoPermitTypedData,
  /** The signer: Permit2's typed data names no owner, the payload does. */
  payer: `0x${string}`,
  signature: Hex,
  extensions?: Record<string, unknown>,
): PaymentPayload {
  const { message } = typedData;
  const permit2Authorization = {
    from: getAddress(payer),
    permitted: { ...message.permitted },
    spender: message.spender,
    nonce: message.nonce,
    deadline: message.deadline,
    witness: { ...message.witness },
  };
  return {
    x402Version: 2,
    ...(resource ? { resource } : {}),
    accepted: acceptedRequirementsOf(option),
    payload: { signature, permit2Authorization },
    ...(extensions ? { extensions } : {}),
  };
}
