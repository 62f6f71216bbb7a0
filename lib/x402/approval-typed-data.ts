/**
 * What a person's wallet is handed for an approval, by scheme: an EIP-3009 authorization
 * (`exact`) or a Permit2 witness permit (`upto`). Browser-safe: the page signs with it, and tests
 * sign the same way. JSON carries uint256 values as decimal strings; wallets want integers.
 */
import type { TypedData } from "viem";
import type { ApprovalRequest, Permit2WitnessTypedData, TransferAuthorizationTypedData } from "../stream/events";

export function isPermit2TypedData(typedData: ApprovalRequest["typedData"]): typedData is Permit2WitnessTypedData {
  return typedData.primaryType === "PermitWitnessTransferFrom";
}

/** The wallet that must sign: named by an EIP-3009 authorization, beside a Permit2 permit (which names no owner). */
export function approvalSigner(approval: ApprovalRequest): `0x${string}` | undefined {
  const { typedData } = approval;
  const signer = isPermit2TypedData(typedData) ? approval.payer : (typedData as TransferAuthorizationTypedData).message.from;
  return signer as `0x${string}` | undefined;
}

/** A short stable key of the approval (its nonce's first digits), for element ids. */
export function approvalKey(approval: ApprovalRequest): string {
  const nonce = approval.typedData.message.nonce;
  return nonce.startsWith("0x") ? nonce.slice(2, 12) : BigInt(nonce).toString(16).padStart(64, "0").slice(0, 10);
}

/** The typed data as viem's and wagmi's `signTypedData` take it (bigints for uint256). */
export function walletTypedDataOf(approval: ApprovalRequest) {
  const { typedData } = approval;
  const domain = { ...typedData.domain, verifyingContract: typedData.domain.verifyingContract as `0x${string}` };
  const types = typedData.types as unknown as TypedData;
  if (isPermit2TypedData(typedData)) {
    const { message } = typedData;
    return {
      domain,
      types,
      primaryType: typedData.primaryType,
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
    } as const;
  }
  const message = (typedData as TransferAuthorizationTypedData).message;
  return {
    domain,
    types,
    primaryType: typedData.primaryType,
    message: { ...message, value: BigInt(message.value), validAfter: BigInt(message.validAfter), validBefore: BigInt(message.validBefore) },
  } as const;
}
