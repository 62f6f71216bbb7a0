import "server-only";
/**
 * Checks the `PAYMENT-SIGNATURE` of an approval's second request before anything is spent:
 * well-formed, signed by `walletAddress` (in the shape of the accepted option's scheme, which
 * reads it back: schemes/payment-scheme.ts `readSigned`), not expired, and bound to the quote the server
 * froze (the HMAC-derived nonce covers every term, the echoed extensions included, so no quote
 * needs to be stored).
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
import { SCHEMES_WITHOUT_CHANNELS, schemeOf } from "../agent/purchase/schemes/payment-schemes";

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
    throw new AppError("payment_required:invalid_signature", {
      message: "The PAYMENT-SIGNATURE header is not a valid base64 JSON payment payload. Nothing was charged.",
    });
  }
  if (!input.walletAddress) {
    throw new AppError("payment_required:mismatch", {
      message: "A PAYMENT-SIGNATURE needs the walletAddress that signed it in the request body. Nothing was charged.",
    });
  }
  const authorization = payload.payload.authorization;
  // Either scheme a person's wallet signs (never a channel's); which one is the accepted
  // requirement's, and the authorization must be of that scheme's shape.
  const selection = selectPayableRequirement({ x402Version: payload.x402Version as 1 | 2, accepts: [payload.accepted] }, input.network, {
    schemes: SCHEMES_WITHOUT_CHANNELS,
  });
  if (!selection.ok) throw new AppError("payment_required:mismatch", { details: selection.reason });
  const option = selection.option;
  const scheme = schemeOf(option);
  const signed = scheme.readSigned(authorization, option);
  if (!signed) throw new AppError("payment_required:mismatch", { details: "scheme" });

  const { validAfter, validBefore, nonce } = signed;
  if (validBefore <= BigInt(Math.floor(input.now / 1000) + MIN_SECONDS_LEFT)) {
    throw new AppError("payment_required:expired");
  }
  const method = payload.resource.method.toUpperCase();
  if (!isCallMethod(method)) throw new AppError("payment_required:mismatch", { details: "method" });
  const { body, contentType } = payload.resource;
  // A content type describes a body; on its own it was never quoted.
  if (body === undefined && contentType !== undefined) throw new AppError("payment_required:mismatch", { details: "content type without a body" });

  const wallet = getAddress(input.walletAddress);
  const sameTerms = signed.sameTerms(wallet);
  const expectedNonce = quoteNonce(input.quoteSecret, {
    payer: input.walletAddress,
    option,
    chainId: input.network.chainId,
    url: payload.resource.url,
    method,
    validAfter,
    validBefore,
    intent: "",
    // The quote's nonce covers the body it was made for and its content type: another body or
    // type, or none, is a mismatch.
    body,
    contentType,
    // The extensions the quote echoes to the service, as approved: another set, or none, is a mismatch.
    extensions: payload.extensions,
    // So is what it echoes of the 402's resource.
    resourceInfo: payload.resource.info,
  });
  if (!sameTerms || !nonce || expectedNonce.toLowerCase() !== nonce.toLowerCase()) {
    throw new AppError("payment_required:mismatch");
  }

  const signature = payload.payload.signature as `0x${string}`;
  const typedData = scheme.typedData({ option, payer: input.walletAddress, validAfter, validBefore, nonce }, input.network.chainId);
  const signer = await scheme.recoverSigner(typedData, signature);
  if (!signer || getAddress(signer) !== wallet) {
    throw new AppError("payment_required:invalid_signature");
  }
  return {
    service: input.serviceName(payload.resource.url),
    url: payload.resource.url,
    method,
    ...(body === undefined ? {} : { body, contentType: contentType ?? DEFAULT_CONTENT_TYPE }),
    option,
    // The 402's resource as the quote echoed it: its URL, description and MIME type.
    resource: payload.x402Version === 2 ? { url: payload.resource.url, ...payload.resource.info } : undefined,
    ...(payload.extensions === undefined ? {} : { extensions: payload.extensions }),
    typedData,
    signature,
    nonce,
    validAfter,
    validBefore,
  };
}
