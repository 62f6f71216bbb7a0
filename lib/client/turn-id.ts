/**
 * Ids for the chat page's turns. An assistant turn's id is also the `Idempotency-Key` of every
 * request of that turn (the first one and the signed retry of an approval), so it must be
 * unguessable: 128 random bits. `crypto.getRandomValues` rather than `crypto.randomUUID`,
 * because the latter exists only in secure contexts and the page may be served over plain http
 * on a private network.
 */
export function newTurnId(prefix: "assistant" | "user"): string {
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  return `${prefix}-${Array.from(bytes, (byte) => byte.toString(16).padStart(2, "0")).join("")}`;
}
