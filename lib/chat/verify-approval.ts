import "server-only";
/**
 * Checks the `PAYMENT-SIGNATURE` of an approval's second request before anything is spent:
 * well-formed, signed by `walletAddress`, not expired, and bound to the quote the server
 * froze (the HMAC-derived nonce covers every term, so no quote needs to be stored).
 */
import { getAddress } from "viem";
import type { ApprovedPayment } from "../agent/purchase/run-purchase";
import { AppError } from "../errors";
import type { NetworkConfig } from "../network/network-config";
import { quoteNonce } from "../x402/authorization-nonce";
import { isCallMethod } from "../x402/input-contract";
import { decodePaymentSignatureHeader } from "../x402/payment-signature-header";
import { selectPayableRequirement } from "../x402/payment-requirements";
import { DEFAULT_CONTENT_TYPE } from "../x402/request-body";
import { buildTransferTypedData, recoverAuthorizationSigner } from "../x402/transfer-authorization";

/** A signature must leave at least this long to settle. */
const MIN_SECONDS_LEFT = 6;

export type VerifyApprovalInput = {
  header: string;
  walletAddress: `0x${string}` | undefined;
  network: NetworkConfig;
  quoteSecret: string;
  now: number;
  serviceName: (url: string) => string;
};

export async function verifyApproval(input: VerifyApprovalInput): Promise<ApprovedPayment> {
  const payload = decodePaymentSignatureHeader(input.header);
  if (!payload) {
    throw new AppError("payment_required:invalid_signature", { message: "The PAYMENT-SIGNATURE header is not a valid base64 JSON payment payload. Nothing was charged." });
  }
  if (!input.walletAddress) {
    throw new AppError("payment_required:mismatch", { message: "A PAYMENT-SIGNATURE needs the walletAddress that signed it in the request body. Nothing was charged." });
  }
  const authorization = payload.payload.authorization;
  const selection = selectPayableRequirement({ x402Version: payload.x402Version as 1 | 2, accepts: [payload.accepted] }, input.network);
  if (!selection.ok) throw new AppError("payment_required:mismatch", { details: selection.reason });
  const option = selection.option;

  if (BigInt(authorization.validBefore) <= BigInt(Math.floor(input.now / 1000) + MIN_SECONDS_LEFT)) {
    throw new AppError("payment_required:expired");
  }
  const method = payload.resource.method.toUpperCase();
  if (!isCallMethod(method)) throw new AppError("payment_required:mismatch", { details: "method" });
  const { body, contentType } = payload.resource;
  // A content type describes a body; on its own it was never quoted.
  if (body === undefined && contentType !== undefined) throw new AppError("payment_required:mismatch", { details: "content type without a body" });

  const sameTerms =
    getAddress(authorization.from) === getAddress(input.walletAddress) &&
    getAddress(authorization.to) === option.payTo &&
    BigInt(authorization.value) === option.amount;
  const expectedNonce = quoteNonce(input.quoteSecret, {
    payer: input.walletAddress,
    option,
    chainId: input.network.chainId,
    url: payload.resource.url,
    method,
    validAfter: BigInt(authorization.validAfter),
    validBefore: BigInt(authorization.validBefore),
    intent: "",
    // The quote's nonce covers the body it was made for and its content type: another body or
    // type, or none, is a mismatch.
    body,
    contentType,
  });
  if (!sameTerms || expectedNonce.toLowerCase() !== authorization.nonce.toLowerCase()) {
    throw new AppError("payment_required:mismatch");
  }

  const typedData = buildTransferTypedData(option, input.walletAddress, input.network.chainId, {
    validAfter: BigInt(authorization.validAfter),
    validBefore: BigInt(authorization.validBefore),
    nonce: authorization.nonce as `0x${string}`,
  });
  const signer = await recoverAuthorizationSigner(typedData, payload.payload.signature as `0x${string}`);
  if (!signer || getAddress(signer) !== getAddress(input.walletAddress)) {
    throw new AppError("payment_required:invalid_signature");
  }
  return {
    service: input.serviceName(payload.resource.url),
    url: payload.resource.url,
    method,
    ...(body === undefined ? {} : { body, contentType: contentType ?? DEFAULT_CONTENT_TYPE }),
    option,
    resource: payload.x402Version === 2 ? { url: payload.resource.url } : undefined,
    typedData,
    signature: payload.payload.signature as `0x${string}`,
  };
}
