/**
 * The `SIGN-IN-WITH-X` header of a sign-in's second request, as the page (and `curl` scripts)
 * build it from request 1's `signIn` offer, the approval it came with and the wallet's
 * signature of `signIn.message`. Browser-safe and tiny: no SDK, no Node APIs.
 */
import type { ApprovalRequest, SignInRequest } from "../stream";

/** The header name, as the server reads it (lib/x402/siwx-binding.ts). */
export const SIGN_IN_WITH_X_HEADER = "SIGN-IN-WITH-X";

export function encodeSignInWithXHeader(
  signIn: SignInRequest,
  approval: Pick<ApprovalRequest, "resource" | "method" | "body" | "contentType">,
  address: `0x${string}`,
  signature: `0x${string}`,
): string {
  const value = {
    challenge: signIn.challenge,
    address,
    signature,
    request: {
      url: approval.resource,
      method: approval.method,
      ...(approval.body === undefined ? {} : { body: approval.body, contentType: approval.contentType }),
    },
    binding: signIn.binding,
  };
  // base64 of the UTF-8 bytes: a statement or body may hold any character.
  const bytes = new TextEncoder().encode(JSON.stringify(value));
  let binary = "";
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary);
}
