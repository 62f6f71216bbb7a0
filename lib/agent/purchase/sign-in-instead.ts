import "server-only";
/**
 * "Pay once, use again": before paying a service whose 402 offers sign-in-with-x (SIWX), the
 * agent wallet signs the service's challenge (an EIP-4361 message: a signature that can move no
 * money) and asks again with the `SIGN-IN-WITH-X` header. A service that remembers this wallet
 * paid for the resource serves it; any other answer means "pay as usual". Nothing is reserved,
 * journaled or signed for a transfer here, and nothing reaches the chain.
 */
import { createHash } from "node:crypto";
import { createSIWxPayload, encodeSIWxHeader, SIGN_IN_WITH_X, type CompleteSIWxInfo } from "@x402/extensions/sign-in-with-x";
import type { SignInRequest } from "../../stream";
import { buildSignInRequest, type SignedIn } from "../../x402/siwx-binding";
import { readSiwxChallenge } from "../../x402/siwx-challenge";
import { sendWithProof } from "./http-call";
import type { PurchaseDependencies, PurchaseOutcome, PurchaseRequest } from "./purchase-types";
import { deliveredResultOf } from "../../stream/delivered-result";
import { readServiceData } from "./service-data";

/** The outcome of a resource served by sign-in: no payment, so no payment id and no amount. */
export type SignedInOutcome = Extract<PurchaseOutcome, { status: "signed-in" }>;

/**
 * Tries the sign-in for an agent-wallet purchase. Returns the outcome when the service served
 * the resource, undefined when it offers no usable challenge or did not serve it (then pay).
 */
export async function signInInstead(deps: PurchaseDependencies, request: PurchaseRequest, paymentRequired: unknown): Promise<SignedInOutcome | undefined> {
  if (request.payer.kind !== "agent") return undefined;
  const now = deps.now;
  const challenge = readSiwxChallenge(paymentRequired, request.url, deps.network.chainId, now());
  if (!challenge) return undefined;
  let header: string;
  try {
    header = encodeSIWxHeader(await createSIWxPayload(challenge, request.payer.account, request.url));
  } catch {
    return undefined;
  }
  return askSignedIn(deps, request, challenge, header, request.payer.account.address);
}

/**
 * Sends the request again with a signed SIWX header. Served (2xx) is reported on the stream as
 * its own outcome; anything else, a failure to connect included, is undefined: nothing was
 * spent, and the caller pays or reports as it would have without the sign-in.
 */
export async function askSignedIn(
  deps: PurchaseDependencies,
  request: Pick<PurchaseRequest, "service" | "url" | "method" | "body" | "contentType" | "tracker" | "signal"> & { intent?: string },
  challenge: Pick<CompleteSIWxInfo, "nonce">,
  header: string,
  payer: `0x${string}`,
): Promise<SignedInOutcome | undefined> {
  let response: Response;
  try {
    response = await sendWithProof(deps.fetch, request, { header: SIGN_IN_WITH_X, value: header }, request.signal);
  } catch {
    return undefined;
  }
  if (!response.ok) {
    await response.body?.cancel().catch(() => undefined);
    return undefined;
  }
  let data;
  try {
    data = await readServiceData(response);
  } catch {
    return undefined;
  }
  const id = `siwx_${createHash("sha256")
    .update(`${request.intent ?? ""}\n${request.url}\n${challenge.nonce}`)
    .digest("hex")
    .slice(0, 16)}`;
  request.tracker.moneyless({
    id,
    status: "delivered",
    access: "sign-in-with-x",
    service: request.service,
    resource: request.url,
    payer,
    message: `Already paid: ${request.service} served it to the wallet that paid for it before, after a sign-in (sign-in-with-x). Nothing was paid now.`,
    // The page shows it as a result card like a paid answer.
    ...deliveredResultOf(data, { method: request.method, body: request.body }),
  });
  return { status: "signed-in", service: request.service, resource: request.url, payer, data };
}

/**
 * For the user's wallet, request 1: the challenge of the 402, if it offers one we would sign,
 * as a sign-in the page can ask the wallet for beside the payment approval.
 */
export function offerSignIn(deps: PurchaseDependencies, request: PurchaseRequest, paymentRequired: unknown): SignInRequest | undefined {
  if (request.payer.kind !== "user") return undefined;
  const challenge = readSiwxChallenge(paymentRequired, request.url, deps.network.chainId, deps.now());
  if (!challenge) return undefined;
  try {
    return buildSignInRequest(
      deps.quoteSecret,
      request.payer.address,
      { url: request.url, method: request.method, body: request.body, contentType: request.contentType },
      challenge,
    );
  } catch {
    return undefined;
  }
}

/**
 * For the user's wallet, request 2: the verified sign-in is sent to the service. Served is the
 * "already paid" outcome; anything else is a refusal in which nothing was paid.
 */
export async function runSignedIn(
  deps: PurchaseDependencies,
  signedIn: SignedIn,
  request: Pick<PurchaseRequest, "tracker" | "signal">,
): Promise<SignedInOutcome | { status: "refused"; message: string }> {
  const served = await askSignedIn(deps, { ...signedIn, tracker: request.tracker, signal: request.signal }, signedIn, signedIn.serviceHeader, signedIn.payer);
  return (
    served ?? {
      status: "refused",
      message: `${signedIn.service} did not serve this wallet by sign-in: it has no payment by this wallet for this resource, or the sign-in expired. Nothing was paid; approve the payment to buy it.`,
    }
  );
}
