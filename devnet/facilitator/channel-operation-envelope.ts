/**
 * @x402/evm 2.27's batch-settlement channel manager (a service's claim, settle and refund rounds)
 * sends its requests to `/settle` with requirements of `maxTimeoutSeconds: 0` (no buyer waits on
 * them), which @x402/core 2.27's own envelope schema refuses ("must be greater than 0"). The
 * devnet checks such an envelope as if the field were 1 and leaves everything else to the schema
 * and the scheme; any other request is returned as it came.
 */
export function acceptChannelOperationTimeout(envelope: { paymentPayload: Record<string, unknown>; paymentRequirements: Record<string, unknown> }) {
  const operation = (envelope.paymentPayload.payload as { type?: unknown } | undefined)?.type;
  const isChannelOperation =
    envelope.paymentRequirements.scheme === "batch-settlement" && (operation === "claim" || operation === "settle" || operation === "refund");
  if (!isChannelOperation) return envelope;
  const patch = (requirements: unknown) =>
    requirements !== null && typeof requirements === "object" && (requirements as { maxTimeoutSeconds?: unknown }).maxTimeoutSeconds === 0
      ? { ...requirements, maxTimeoutSeconds: 1 }
      : requirements;
  return {
    paymentPayload: { ...envelope.paymentPayload, accepted: patch(envelope.paymentPayload.accepted) },
    paymentRequirements: patch(envelope.paymentRequirements) as Record<string, unknown>,
  };
}
