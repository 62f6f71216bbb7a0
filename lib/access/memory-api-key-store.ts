import "server-only";
/**
 * API keys in process memory: for tests, and for a store with no database (Redis only), where
 * keys live only as long as the process that created them.
 */

import { isKeyId, judgeKey, newestFirst, newKeyRecord } from "./api-key-rules";
import { mintToken, parseToken, hashSecret, type ApiKeyRecord, type ApiKeyStore, type CreateApiKeyInput, type KeyCheck } from "./api-keys";
import { resolveNow } from "../clock";

/** What is kept per key: the record and the hash of its secret, never the secret. */
export type StoredApiKey = { key: ApiKeyRecord; secretHash: string };

export class MemoryApiKeyStore implements ApiKeyStore {
  private readonly keys = new Map<string, StoredApiKey>();

  async create(input: CreateApiKeyInput): Promise<{ key: ApiKeyRecord; token: string }> {
    const { id, secret, token } = mintToken();
    const key = newKeyRecord(input, id);
    this.keys.set(id, { key, secretHash: hashSecret(secret) });
    return { key: copy(key), token };
  }

  async list(): Promise<ApiKeyRecord[]> {
    return [...this.keys.values()].map((stored) => copy(stored.key)).sort(newestFirst);
  }

  async revoke(id: string, now?: number): Promise<"revoked" | "already-revoked" | "not-found"> {
    const at = resolveNow(now);
    const stored = isKeyId(id) ? this.keys.get(id) : undefined;
    if (!stored) return "not-found";
    if (stored.key.revokedAt !== null) return "already-revoked";
    stored.key.revokedAt = at;
    return "revoked";
  }

  async check(token: string, now?: number): Promise<KeyCheck> {
    const at = resolveNow(now);
    const parsed = parseToken(token);
    if (!parsed) return { ok: false, reason: "malformed" };
    const stored = this.keys.get(parsed.id);
    const verdict = judgeKey(parsed.secret, stored, at);
    return verdict.ok ? { ok: true, key: copy(verdict.key) } : verdict;
  }

  /** Tests only: what this store holds, to show no secret is kept. */
  storedForTests(): StoredApiKey[] {
    return [...this.keys.values()].map((stored) => ({ key: copy(stored.key), secretHash: stored.secretHash }));
  }
}

/** Callers get copies, so mutating a returned record cannot change the stored key. */
function copy(key: ApiKeyRecord): ApiKeyRecord {
  return { ...key, budget: { ...key.budget } };
}
