/**
 * EIP-712 typed data of an EIP-3009 `TransferWithAuthorization` (what x402's exact scheme
 * signs), built from a frozen quote, plus the x402 payment payload that carries a signature.
 */
import { authorizationTypes } from "@x402/evm";
import { getAddress, recoverTypedDataAddress, type Hex } from "viem";
import type { TransferAuthorizationTypedData } from "../stream/events";
import type { PayableRequirement } from "./payment-requirements";
import type { ResourceInfo } from "@x402/core/types";
import { acceptedRequirementsOf, type OutgoingPaymentPayload } from "./payment-payload";

export type AuthorizationWindow = { validAfter: bigint; validBefore: bigint; nonce: Hex };

/** The typed data a wallet signs; integers as decimal strings so it travels as JSON. */
export function buildTransferTypedData(
  option: PayableRequirement,
  payer: `0x${string}`,
  chainId: number,
  window: AuthorizationWindow,
): TransferAuthorizationTypedData {
  return {
    domain: {
      name: option.domain.name,
      version: option.domain.version,
      chainId,
      verifyingContract: getAddress(option.asset),
    },
    types: { TransferWithAuthorization: authorizationTypes.TransferWithAuthorization.map((field) => ({ ...field })) },
    primaryType: "TransferWithAuthorization",
    message: {
      from: getAddress(payer),
      to: getAddress(option.payTo),
      value: option.amount.toString(),
      validAfter: window.validAfter.toString(),
      validBefore: window.validBefore.toString(),
      nonce: window.nonce,
    },
  };
}

/** The typed data in the form viem's signers and verifiers take (bigints). */
export function toViemTypedData(typedData: TransferAuthorizationTypedData) {
  return {
    domain: { ...typedData.domain, verifyingContract: typedData.domain.verifyingContract as `0x${string}` },
    types: typedData.types,
    primaryType: "TransferWithAuthorization" as const,
    message: {
      from: typedData.message.from as `0x${string}`,
      to: typedData.message.to as `0x${string}`,
      value: BigInt(typedData.message.value),
      validAfter: BigInt(typedData.message.validAfter),
      validBefore: BigInt(typedData.message.validBefore),
      nonce: typedData.message.nonce as Hex,
    },
  };
}

/** The address that signed the typed data, or undefined for a malformed signature. */
export async function recoverAuthorizationSigner(typedData: TransferAuthorizationTypedData, signature: Hex): Promise<`0x${string}` | undefined> {
  try {
    return await recoverTypedDataAddress({ ...toViemTypedData(typedData), signature });
  } catch {
    return undefined;
  }
}

/**
 * The x402 payment payload for a signed authorization, in the shape of the service's protocol
 * version: v2 echoes the accepted requirements and resource; v1 names scheme and network.
 */
export function buildPaymentPayload(
  option: PayableRequirement,
  resource: ResourceInfo | undefined,
  typedData: TransferAuthorizationTypedData,
  signature: Hex,
  /** v2 only: the extensions the service declared and we echo (e.g. payment-identifier). */
  extensions?: Record<string, unknown>,
): OutgoingPaymentPayload {
  const payload = { authorization: { ...typedData.message }, signature };
  if (option.x402Version === 1) {
    return { x402Version: 1, scheme: "exact", network: option.network, payload };
  }
  return {
    x402Version: 2,
    ...(resource ? { resource } : {}),
    accepted: acceptedRequirementsOf(option),
    payload,
    ...(extensions ? { extensions } : {}),
  };
}
