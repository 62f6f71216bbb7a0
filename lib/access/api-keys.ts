import "server-only";
/**
 * Operator API keys: what a key is, and the format of its token. A token is
 * `x402k_<id>_<secret>`: the prefix makes a leaked token recognisable (secret scanners, logs),
 * the id finds the row without scanning, and the secret (32 random bytes, base64url) is what
 * proves possession. Only a hash of the secret is stored; the token is shown once, at creation.
 */
import { createHash, randomBytes } from "node:crypto";
import { z } from "zod";
import { sameSecret } from "../auth/same-secret";

/** USDC base units (6 decimals). */
export type CallerBudget = { perPayment: bigint; perRequest: bigint; daily: bigint };

/** Times are epoch milliseconds. */
export type ApiKeyRecord = {
  id: string;
  name: string;
  budget: CallerBudget;
  /** May make the agent wallet (the operator's money) pay. */
  agentWallet: boolean;
  createdAt: number;
  expiresAt: number | null;
  revokedAt: number | null;
};

export type KeyCheck = { ok: true; key: ApiKeyRecord } | { ok: false; reason: "malformed" | "unknown" | "revoked" | "expired" };

export type CreateApiKeyInput = { name: string; budget: CallerBudget; agentWallet?: boolean; expiresAt?: number | null; now?: number };

export interface ApiKeyStore {
  /** The token is returned once and never stored. */
  create(input: CreateApiKeyInput): Promise<{ key: ApiKeyRecord; token: string }>;
  /** Newest first (ties: higher id first). */
  list(): Promise<ApiKeyRecord[]>;
  revoke(id: string, now?: number): Promise<"revoked" | "already-revoked" | "not-found">;
  /**
   * A wrong secret for a real id answers "unknown", like an id that does not exist, so a
   * caller learns nothing about which ids exist; "revoked" and "expired" are told only to the
   * holder of the right secret.
   */
  check(token: string, now?: number): Promise<KeyCheck>;
}

export const TOKEN_PREFIX = "x402k_";
const ID_BYTES = 8;
const SECRET_BYTES = 32;

/** 16 lowercase hex digits: no underscore, so the token splits unambiguously. */
export const ApiKeyId = z.string().regex(/^[0-9a-f]{16}$/);

// base64url of 32 bytes is exactly 43 characters. The length cap runs first, so a huge header
// costs nothing before it is refused.
const Token = z
  .string()
  .max(TOKEN_PREFIX.length + 16 + 1 + 43)
  .regex(/^x402k_([0-9a-f]{16})_([A-Za-z0-9_-]{43})$/);

export type ParsedToken = { id: string; secret: string };

/** The id and secret of a well-formed token; undefined for anything else (never throws). */
export function parseToken(token: unknown): ParsedToken | undefined {
  const parsed = Token.safeParse(token);
  if (!parsed.success) return undefined;
  const [, id, secret] = /^x402k_([0-9a-f]{16})_(.+)$/.exec(parsed.data) ?? [];
  return id && secret ? { id, secret } : undefined;
}

/** A fresh id and secret, and the token that carries them. */
export function mintToken(): ParsedToken & { token: string } {
  const id = randomBytes(ID_BYTES).toString("hex");
  const secret = randomBytes(SECRET_BYTES).toString("base64url");
  return { id, secret, token: `${TOKEN_PREFIX}${id}_${secret}` };
}

/**
 * The stored form of a secret: sha256, hex. A slow password hash (bcrypt, scrypt, argon2)
 * exists to make guessing low-entropy human passwords expensive; this secret is 256 bits from
 * the operating system's CSPRNG, so no guessing is feasible whatever the hash, and a fast hash
 * keeps `check`, which runs on every request, from being a lever for denial of service.
 */
export function hashSecret(secret: string): string {
  return createHash("sha256").update(secret, "utf8").digest("hex");
}

/** A hash no secret has, compared against when the id is unknown so both paths do the same work. */
const NO_HASH = "0".repeat(64);

/** Whether `secret` matches the stored hash, in constant time (see lib/auth/same-secret.ts). */
export function secretMatches(secret: string, storedHash: string | undefined): boolean {
  const matches = sameSecret(hashSecret(secret), storedHash ?? NO_HASH);
  return matches && storedHash !== undefined;
}
