import "server-only";
/**
 * Checks the `SIGN-IN-WITH-X` header of a sign-in's second request before anything is sent:
 * well-formed, bound by our HMAC to this wallet, this request and this challenge (so nothing in
 * it was swapped since request 1), the challenge still bound to the request's origin and in
 * time, and signed by `walletAddress` (EIP-4361 via the SDK). A sign-in is never a payment: it
 * only lets the service recognise a wallet that already paid.
 */
import { encodeSIWxHeader, verifySIWxSignature, type SIWxPayload } from "@x402/extensions/sign-in-with-x";
import { getAddress } from "viem";
import { AppError } from "../errors";
import { isCallMethod } from "../x402/input-contract";
import { DEFAULT_CONTENT_TYPE } from "../x402/request-body";
import { decodeSignInHeader, sameBinding, type SignedIn } from "../x402/siwx-binding";
import { boundToOrigin, timely } from "../x402/siwx-challenge";
import type { VerifyApprovalInput } from "./verify-approval";

export type { SignedIn };

/** The same inputs as a payment signature's check: the request's header, wallet and network. */
export type VerifySignInInput = VerifyApprovalInput;

const NOTHING = "Nothing was paid.";

export async function verifySignIn(input: VerifySignInInput): Promise<SignedIn> {
  const signed = decodeSignInHeader(input.header);
  if (!signed)
    throw new AppError("payment_required:invalid_signature", { message: `The SIGN-IN-WITH-X header is not a valid base64 JSON sign-in. ${NOTHING}` });
  if (!input.walletAddress) {
    throw new AppError("payment_required:mismatch", {
      message: `A SIGN-IN-WITH-X header needs the walletAddress that signed it in the request body. ${NOTHING}`,
    });
  }
  const wallet = getAddress(input.walletAddress);
  const { challenge, request } = signed;
  const method = request.method.toUpperCase();
  if (!isCallMethod(method)) throw new AppError("payment_required:mismatch", { details: "method" });
  if (request.body === undefined && request.contentType !== undefined)
    throw new AppError("payment_required:mismatch", { details: "content type without a body" });
  const target = { url: request.url, method, body: request.body, contentType: request.contentType };
  const ours = `eip155:${input.network.chainId}`;
  if (
    getAddress(signed.address) !== wallet ||
    challenge.chainId !== ours ||
    !boundToOrigin(challenge, request.url) ||
    !sameBinding(input.quoteSecret, wallet, target, challenge, signed.binding)
  ) {
    throw new AppError("payment_required:mismatch", { message: `The sign-in does not match the request it was offered for. ${NOTHING}` });
  }
  if (!timely(challenge, input.now)) throw new AppError("payment_required:expired", { message: `The sign-in has expired. Ask again. ${NOTHING}` });

  const payload: SIWxPayload = { ...challenge, address: wallet, signature: signed.signature };
  const verified = await verifySIWxSignature(payload);
  if (!verified.isValid || getAddress(verified.payer) !== wallet) {
    throw new AppError("payment_required:invalid_signature", { message: `The sign-in was not signed by this wallet. ${NOTHING}` });
  }
  return {
    service: input.serviceName(request.url),
    url: request.url,
    method,
    ...(request.body === undefined ? {} : { body: request.body, contentType: request.contentType ?? DEFAULT_CONTENT_TYPE }),
    payer: wallet,
    nonce: challenge.nonce,
    serviceHeader: encodeSIWxHeader(payload),
  };
}

/** The sign-in of a request, if it carries one (checked as above), else undefined. */
export async function readSignIn(header: string | null, input: Omit<VerifySignInInput, "header">): Promise<SignedIn | undefined> {
  return header === null ? undefined : verifySignIn({ ...input, header });
}
