import "server-only";
/**
 * Checks the `PAYMENT-SIGNATURE` of an approval's second request before anything is spent:
 * well-formed, signed by `walletAddress` (an EIP-3009 authorization for `exact`, a Permit2
 * permit for `upto`), not expired, and bound to the quote the server
 * froze (the HMAC-derived nonce covers every term, the echoed extensions included, so no quote
 * needs to be stored).
 */
import { getAddress } from "viem";
import type { ApprovedPayment } from "../agent/purchase/run-purchase";
import { AppError } from "../errors";
import type { NetworkConfig } from "../network/network-config";
import { quoteNonce } from "../x402/authorization-nonce";
import { isCallMethod } from "../x402/input-contract";
import { decodePaymentSignatureHeader, isPermit2Authorization, type TransferAuthorization } from "../x402/payment-signature-header";
import { selectPayableRequirement } from "../x402/payment-requirements";
import { DEFAULT_CONTENT_TYPE } from "../x402/request-body";
import { buildTransferTypedData, recoverAuthorizationSigner } from "../x402/transfer-authorization";
import { buildUptoTypedData, recoverUptoSigner, UPTO_PROXY, type UptoPermitTypedData } from "../x402/upto-permit2";
import type { TransferTypedData } from "../agent/purchase/purchase-types";
import { PAYABLE_SCHEMES } from "../agent/purchase/schemes/payment-schemes";

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
  // Either scheme a person's wallet signs; which one is the accepted requirement's, and the
  // authorization must be of that scheme's shape.
  const selection = selectPayableRequirement({ x402Version: payload.x402Version as 1 | 2, accepts: [payload.accepted] }, input.network, {
    schemes: PAYABLE_SCHEMES,
  });
  if (!selection.ok) throw new AppError("payment_required:mismatch", { details: selection.reason });
  const option = selection.option;
  const permit = isPermit2Authorization(authorization) ? authorization : undefined;
  if (Boolean(option.upto) !== Boolean(permit)) throw new AppError("payment_required:mismatch", { details: "scheme" });

  // A permit's window is [validAfter (in its witness), deadline]; an authorization's [validAfter, validBefore).
  const validAfter = BigInt(permit ? permit.witness.validAfter : (authorization as TransferAuthorization).validAfter);
  const validBefore = BigInt(permit ? permit.deadline : (authorization as TransferAuthorization).validBefore);
  if (validBefore <= BigInt(Math.floor(input.now / 1000) + MIN_SECONDS_LEFT)) {
    throw new AppError("payment_required:expired");
  }
  const method = payload.resource.method.toUpperCase();
  if (!isCallMethod(method)) throw new AppError("payment_required:mismatch", { details: "method" });
  const { body, contentType } = payload.resource;
  // A content type describes a body; on its own it was never quoted.
  if (body === undefined && contentType !== undefined) throw new AppError("payment_required:mismatch", { details: "content type without a body" });

  const wallet = getAddress(input.walletAddress);
  const sameTerms = permit
    ? getAddress(permit.from) === wallet &&
      getAddress(permit.witness.to) === option.payTo &&
      BigInt(permit.permitted.amount) === option.amount &&
      getAddress(permit.permitted.token) === option.asset &&
      getAddress(permit.spender) === UPTO_PROXY &&
      getAddress(permit.witness.facilitator) === option.upto?.facilitator
    : getAddress((authorization as TransferAuthorization).from) === wallet &&
      getAddress((authorization as TransferAuthorization).to) === option.payTo &&
      BigInt((authorization as TransferAuthorization).value) === option.amount;
  // A permit carries the quote's nonce as a uint256 (upto-permit2.ts): read back as 32 bytes.
  const nonce = permit ? quoteNonceOfPermit(permit.nonce) : ((authorization as TransferAuthorization).nonce as `0x${string}`);
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
  const typedData = permit
    ? buildUptoTypedData(option, input.network.chainId, { validAfter, deadline: validBefore, nonce })
    : buildTransferTypedData(option, input.walletAddress, input.network.chainId, { validAfter, validBefore, nonce });
  const signer = permit
    ? await recoverUptoSigner(typedData as UptoPermitTypedData, signature)
    : await recoverAuthorizationSigner(typedData as TransferTypedData, signature);
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

/** A permit's uint256 nonce as the 32-byte quote nonce it was made from; undefined when it cannot be one. */
function quoteNonceOfPermit(nonce: string): `0x${string}` | undefined {
  const hex = BigInt(nonce).toString(16);
  return hex.length > 64 ? undefined : `0x${hex.padStart(64, "0")}`;
}
