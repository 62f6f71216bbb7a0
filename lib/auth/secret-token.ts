/**
 * Bearer tokens that name a row and prove possession: `<prefix><id>_<secret>`. The prefix makes
 * a leaked token recognisable (secret scanners, logs), the id (16 hex digits) finds the row
 * without scanning, and the secret (32 random bytes, base64url) is what proves possession.
 * Only a hash of the secret is stored; the token is shown once, at creation. Operator API keys
 * (`x402k_`) and grants (`x402g_`) both use it.
 */
import { createHash, randomBytes } from "node:crypto";
import { sameSecret } from "./same-secret";

const ID_BYTES = 8;
const SECRET_BYTES = 32;

export type ParsedSecretToken = { id: string; secret: string };

/** Mints and reads the tokens of one prefix (lowercase letters and digits, ending in `_`). */
export function secretTokens(prefix: string) {
  if (!/^[a-z0-9]+_$/.test(prefix)) throw new TypeError("a token prefix is lowercase letters and digits ending in _");
  // base64url of 32 bytes is exactly 43 characters. The length cap runs first, so a huge
  // header costs nothing before it is refused.
  const pattern = new RegExp(`^${prefix}([0-9a-f]{16})_([A-Za-z0-9_-]{43})$`);
  const maxLength = prefix.length + 16 + 1 + 43;
  return {
    prefix,
    /** A fresh id and secret, and the token that carries them. */
    mint(): ParsedSecretToken & { token: string } {
      const id = randomBytes(ID_BYTES).toString("hex");
      const secret = randomBytes(SECRET_BYTES).toString("base64url");
      return { id, secret, token: `${prefix}${id}_${secret}` };
    },
    /** The id and secret of a well-formed token; undefined for anything else (never throws). */
    parse(token: unknown): ParsedSecretToken | undefined {
      if (typeof token !== "string" || token.length > maxLength) return undefined;
      const [, id, secret] = pattern.exec(token) ?? [];
      return id && secret ? { id, secret } : undefined;
    },
  };
}

/**
 * The stored form of a secret: sha256, hex. A slow password hash (bcrypt, scrypt, argon2)
 * exists to make guessing low-entropy human passwords expensive; this secret is 256 bits from
 * the operating system's CSPRNG, so no guessing is feasible whatever the hash, and a fast hash
 * keeps a check, which runs on every request, from being a lever for denial of service.
 */
export function hashSecret(secret: string): string {
  return createHash("sha256").update(secret, "utf8").digest("hex");
}

/** A hash no secret has, compared against when the id is unknown so both paths do the same work. */
const NO_HASH = "0".repeat(64);

/** Whether `secret` matches the stored hash, in constant time (see same-secret.ts). */
export function secretMatches(secret: string, storedHash: string | undefined): boolean {
  const matches = sameSecret(hashSecret(secret), storedHash ?? NO_HASH);
  return matches && storedHash !== undefined;
}
