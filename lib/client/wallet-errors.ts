/** Reading wallet errors: a person saying no in their wallet is not a failure to shout about. */

type ErrorLike = { name?: unknown; code?: unknown; cause?: unknown; shortMessage?: unknown; message?: unknown };

/** True when the wallet (or the person in front of it) declined: EIP-1193 code 4001. */
export function isUserRejection(error: unknown): boolean {
  let current: unknown = error;
  for (let depth = 0; depth < 8 && typeof current === "object" && current !== null; depth++) {
    const candidate = current as ErrorLike;
    if (candidate.name === "UserRejectedRequestError" || candidate.code === 4001) return true;
    current = candidate.cause;
  }
  return false;
}

/** A one-line message for a wallet error, without viem's multi-line details. */
export function walletErrorMessage(error: unknown): string {
  if (typeof error === "object" && error !== null) {
    const candidate = error as ErrorLike;
    if (typeof candidate.shortMessage === "string" && candidate.shortMessage) return candidate.shortMessage;
    if (typeof candidate.message === "string" && candidate.message) return candidate.message.split("\n")[0] ?? candidate.message;
  }
  return "The wallet could not complete the request.";
}
