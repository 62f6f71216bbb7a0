/**
 * How long a signed authorization may live, so that its outcome can be proven in time.
 *
 * A service that received an authorization may use it until `validBefore`. The chain proves
 * that nothing moved only once `validBefore` has passed with the authorization unused, so an
 * agent authorization must expire early enough for that proof to land inside the request:
 * lifetime ≤ time left − the proof margin below.
 */

/** Past validBefore, wait this long for a block that may still carry the transfer. */
export const EXPIRY_MARGIN_SECONDS = 3;
/** Room for the last chain reads after the margin (and one poll interval). */
const PROOF_READ_SECONDS = 3;
/** From an authorization's expiry to a proven outcome. */
export const PROOF_MARGIN_SECONDS = EXPIRY_MARGIN_SECONDS + PROOF_READ_SECONDS;
/** No authorization is signed for less than this: the service needs time to verify and settle. */
export const MIN_AUTHORIZATION_SECONDS = 6;
/** No payment starts with less time than this left before the deadline. */
export const MIN_PAYMENT_WINDOW_SECONDS = MIN_AUTHORIZATION_SECONDS + PROOF_MARGIN_SECONDS;
/** Valid-after is set this far in the past, for signers and chains whose clocks run behind. */
export const CLOCK_SKEW_SECONDS = 60;
export const DEFAULT_APPROVAL_TTL_SECONDS = 300;
export const DEFAULT_AGENT_AUTHORIZATION_TTL_SECONDS = 20;
/**
 * How long the user-wallet path watches the chain after a failed paid request before handing
 * the payment to the reconciler: the user's signature lives minutes, far beyond any request.
 */
export const USER_SETTLEMENT_WATCH_MS = 10_000;

/**
 * The lifetime of an agent-wallet authorization, or undefined when too little time is left to
 * sign one whose outcome can still be proven within the request.
 *
 * @example
 * agentAuthorizationSeconds({ secondsLeft: 22, serviceMaxSeconds: 60, configuredSeconds: 20 }); // 16
 */
export function agentAuthorizationSeconds(input: { secondsLeft: number; serviceMaxSeconds: number; configuredSeconds: number }): number | undefined {
  const seconds = Math.min(input.serviceMaxSeconds, input.configuredSeconds, Math.floor(input.secondsLeft) - PROOF_MARGIN_SECONDS);
  return seconds >= MIN_AUTHORIZATION_SECONDS ? seconds : undefined;
}

/** "2026-01-01 12:00:05 UTC": when a signature stops being usable, for people. */
export function describeExpiry(validBeforeSeconds: bigint | number): string {
  return `${new Date(Number(validBeforeSeconds) * 1000).toISOString().slice(0, 19).replace("T", " ")} UTC`;
}

/**
 * A quote's validity window: a person's approval time, or the agent's authorization time that
 * still leaves room to prove the outcome before the deadline (undefined: too little time left).
 * It opens CLOCK_SKEW_SECONDS early, for a chain whose clock runs behind ours.
 */
export function quoteWindow(input: {
  payerKind: "agent" | "user";
  nowMs: number;
  deadline: number;
  serviceMaxSeconds: number;
  approvalTtlSeconds: number | undefined;
  agentTtlSeconds: number | undefined;
}): { validAfter: bigint; validBefore: bigint } | undefined {
  const nowSeconds = Math.floor(input.nowMs / 1000);
  const lifetime =
    input.payerKind === "user"
      ? (input.approvalTtlSeconds ?? DEFAULT_APPROVAL_TTL_SECONDS)
      : agentAuthorizationSeconds({
          secondsLeft: (input.deadline - input.nowMs) / 1000,
          serviceMaxSeconds: input.serviceMaxSeconds,
          configuredSeconds: input.agentTtlSeconds ?? DEFAULT_AGENT_AUTHORIZATION_TTL_SECONDS,
        });
  if (lifetime === undefined) return undefined;
  return { validAfter: BigInt(nowSeconds - CLOCK_SKEW_SECONDS), validBefore: BigInt(nowSeconds + lifetime) };
}
