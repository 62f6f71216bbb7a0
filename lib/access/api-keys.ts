import "server-only";
/**
 * Operator API keys: what a key is, and its token, `x402k_<id>_<secret>` (lib/auth/secret-token.ts:
 * only a hash of the secret is stored; the token is shown once, at creation).
 */
import { z } from "zod";
import { hashSecret, secretMatches, secretTokens, type ParsedSecretToken } from "../auth/secret-token";

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

const tokens = secretTokens("x402k_");
export const TOKEN_PREFIX = tokens.prefix;

/** 16 lowercase hex digits: no underscore, so the token splits unambiguously. */
export const ApiKeyId = z.string().regex(/^[0-9a-f]{16}$/);

export type ParsedToken = ParsedSecretToken;

/** The id and secret of a well-formed token; undefined for anything else (never throws). */
export const parseToken = (token: unknown): ParsedToken | undefined => tokens.parse(token);

/** A fresh id and secret, and the token that carries them. */
export const mintToken = (): ParsedToken & { token: string } => tokens.mint();

export { hashSecret, secretMatches };
