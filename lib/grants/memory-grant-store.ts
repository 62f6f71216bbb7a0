/**
 * Grants in process memory: for tests, and for a store with no database, where grants live only
 * as long as the process that recorded them.
 */
import { getAddress } from "viem";
import { hashSecret, secretMatches } from "../auth/secret-token";
import { resolveNow } from "../clock";
import { floatReturnable, grantTokens, newestFirst, type FloatClaim, type GrantCheck, type GrantRecord, type GrantStore, type NewGrant } from "./grants";

type StoredGrant = { grant: GrantRecord; secretHash: string; claim?: { holder: string; until: number } };

export class MemoryGrantStore implements GrantStore {
  private readonly grants = new Map<string, StoredGrant>();

  async create(input: NewGrant): Promise<{ grant: GrantRecord; token: string } | "duplicate"> {
    const wallet = input.walletAddress.toLowerCase();
    const mine = [...this.grants.values()].filter((stored) => stored.grant.walletAddress.toLowerCase() === wallet);
    if (mine.some((stored) => stored.grant.nonce === input.nonce)) return "duplicate";
    const { id, secret, token } = grantTokens.mint();
    const grant: GrantRecord = {
      id,
      walletAddress: getAddress(input.walletAddress),
      amount: input.amount,
      expiresAt: input.expiresAt,
      nonce: input.nonce,
      permitTransaction: input.permitTransaction,
      createdAt: resolveNow(input.now),
      revokedAt: null,
      replacedBy: null,
      floatReturned: 0n,
      sweptAt: null,
    };
    for (const stored of mine) stored.grant.replacedBy ??= id;
    this.grants.set(id, { grant, secretHash: hashSecret(secret) });
    return { grant: { ...grant }, token };
  }

  async get(id: string): Promise<GrantRecord | undefined> {
    const stored = this.grants.get(id);
    return stored ? { ...stored.grant } : undefined;
  }

  async list(walletAddress: `0x${string}`): Promise<GrantRecord[]> {
    const wallet = walletAddress.toLowerCase();
    return [...this.grants.values()]
      .filter((stored) => stored.grant.walletAddress.toLowerCase() === wallet)
      .map((stored) => ({ ...stored.grant }))
      .sort(newestFirst);
  }

  async revoke(id: string, walletAddress: `0x${string}`, now?: number): Promise<"revoked" | "already-revoked" | "not-found"> {
    const stored = this.grants.get(id);
    if (!stored || stored.grant.walletAddress.toLowerCase() !== walletAddress.toLowerCase()) return "not-found";
    if (stored.grant.revokedAt !== null) return "already-revoked";
    stored.grant.revokedAt = resolveNow(now);
    return "revoked";
  }

  async check(token: string): Promise<GrantCheck> {
    const parsed = grantTokens.parse(token);
    if (!parsed) return { ok: false, reason: "malformed" };
    const stored = this.grants.get(parsed.id);
    if (!secretMatches(parsed.secret, stored?.secretHash) || !stored) return { ok: false, reason: "unknown" };
    return { ok: true, grant: { ...stored.grant } };
  }

  async endedUnswept(limit: number, now?: number): Promise<GrantRecord[]> {
    const at = resolveNow(now);
    const clock = Date.now();
    return [...this.grants.values()]
      .filter((stored) => stored.grant.sweptAt === null && floatReturnable(stored.grant, at) && (stored.claim?.until ?? 0) <= clock)
      .map((stored) => ({ ...stored.grant }))
      .sort((left, right) => left.expiresAt - right.expiresAt || (left.id < right.id ? -1 : left.id > right.id ? 1 : 0))
      .slice(0, limit);
  }

  async claimFloat(id: string, holdMs: number, holder: string, now?: number): Promise<FloatClaim> {
    const stored = this.grants.get(id);
    if (!stored || !floatReturnable(stored.grant, resolveNow(now))) return "kept";
    const clock = Date.now();
    if (stored.grant.sweptAt !== null || (stored.claim?.until ?? 0) > clock) return "held";
    stored.claim = { holder, until: clock + holdMs };
    return "claimed";
  }

  async releaseFloat(id: string, holder: string, outcome: { returned: bigint; swept: boolean }): Promise<void> {
    const stored = this.grants.get(id);
    if (!stored) return;
    stored.grant.floatReturned += outcome.returned;
    if (stored.claim?.holder !== holder) return;
    stored.claim = undefined;
    if (outcome.swept) stored.grant.sweptAt ??= Date.now();
  }
}
