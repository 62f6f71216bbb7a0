/**
 * The countdown beside a pending payment: how long the signed authorization can still be used.
 * Until then a service that holds it may settle it; once it has expired, nothing can be spent
 * with it, and the chain's word that it went unused ends the wait.
 */

/**
 * @example
 * describeSignatureExpiry(1_700_000_014, 1_700_000_000_000); // "Signature expires in 14 s"
 * describeSignatureExpiry(1_700_000_305, 1_700_000_000_000); // "Signature expires in 5 min 05 s"
 */
export function describeSignatureExpiry(expiresAtSeconds: number, nowMs: number): string {
  const left = Math.ceil(expiresAtSeconds - nowMs / 1000);
  if (left <= 0) return "Signature expired: nothing can be spent with it any more";
  if (left < 60) return `Signature expires in ${left} s`;
  return `Signature expires in ${Math.floor(left / 60)} min ${String(left % 60).padStart(2, "0")} s`;
}
