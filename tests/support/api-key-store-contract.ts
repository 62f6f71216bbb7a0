/**
 * The behaviour every ApiKeyStore must have, as one vitest suite, run against the memory store
 * and the database store (lib/access/*.test.ts) so both behave the same.
 */
import { afterEach, describe, expect, it } from "vitest";
import { hashSecret, parseToken, type ApiKeyStore, type CallerBudget } from "../../lib/access/api-keys";

/** A fresh, empty store, and a look at what it keeps (rows as stored), for the secrecy test. */
export type OpenApiKeyStore = () => Promise<{ store: ApiKeyStore; stored(): Promise<unknown[]>; close(): Promise<void> }>;

const T0 = Date.UTC(2026, 0, 1, 12, 0, 0);
const DAY = 24 * 60 * 60 * 1000;
const BUDGET: CallerBudget = { perPayment: 500_000n, perRequest: 1_000_000n, daily: 5_000_000n };

/** JSON that keeps bigints (as strings), to search stored rows for a secret. */
const dump = (value: unknown) => JSON.stringify(value, (_key, item: unknown) => (typeof item === "bigint" ? item.toString() : item));

/** The same token with its secret's last character changed (still well-formed). */
function withWrongSecret(token: string): string {
  const last = token.at(-1) === "A" ? "B" : "A";
  return `${token.slice(0, -1)}${last}`;
}

export function describeApiKeyStoreContract(name: string, open: OpenApiKeyStore): void {
  describe(`${name}: api key store contract`, () => {
    const closers: Array<() => Promise<void>> = [];
    afterEach(async () => {
      await Promise.all(closers.splice(0).map((close) => close()));
    });
    async function fresh() {
      const opened = await open();
      closers.push(opened.close);
      return opened;
    }

    it("creates a key whose token checks out, with the record as given", async () => {
      const { store } = await fresh();
      const { key, token } = await store.create({ name: "ci", budget: BUDGET, expiresAt: T0 + DAY, now: T0 });
      expect(key).toEqual({ id: key.id, name: "ci", budget: BUDGET, agentWallet: true, createdAt: T0, expiresAt: T0 + DAY, revokedAt: null });
      expect(token).toMatch(/^x402k_[0-9a-f]{16}_[A-Za-z0-9_-]{43}$/);
      expect(parseToken(token)?.id).toBe(key.id);
      expect(await store.check(token, T0 + 1)).toEqual({ ok: true, key });
    });

    it("keeps agentWallet false and no expiry when asked", async () => {
      const { store } = await fresh();
      const { key, token } = await store.create({ name: "reader", budget: { perPayment: 0n, perRequest: 0n, daily: 0n }, agentWallet: false, now: T0 });
      expect(key).toMatchObject({ agentWallet: false, expiresAt: null, budget: { perPayment: 0n, perRequest: 0n, daily: 0n } });
      expect(await store.check(token, T0 + 100 * 365 * DAY)).toEqual({ ok: true, key });
    });

    it("keeps amounts far beyond 2^64 exactly", async () => {
      const { store } = await fresh();
      const big = 10n ** 29n + 7n;
      const { token } = await store.create({ name: "whale", budget: { perPayment: big, perRequest: big, daily: big }, now: T0 });
      const result = await store.check(token, T0);
      expect(result.ok && result.key.budget).toEqual({ perPayment: big, perRequest: big, daily: big });
    });

    it("lists keys newest first, with revocations", async () => {
      const { store } = await fresh();
      expect(await store.list()).toEqual([]);
      const first = await store.create({ name: "first", budget: BUDGET, now: T0 });
      const second = await store.create({ name: "second", budget: BUDGET, now: T0 + 1000 });
      expect((await store.list()).map((key) => key.name)).toEqual(["second", "first"]);
      await store.revoke(first.key.id, T0 + 2000);
      expect(await store.list()).toEqual([second.key, { ...first.key, revokedAt: T0 + 2000 }]);
    });

    it("revokes once: later revokes and unknown ids say so, and the key stops working", async () => {
      const { store } = await fresh();
      const { key, token } = await store.create({ name: "ci", budget: BUDGET, now: T0 });
      expect(await store.revoke(key.id, T0 + 10)).toBe("revoked");
      expect(await store.revoke(key.id, T0 + 20)).toBe("already-revoked");
      expect((await store.list())[0]?.revokedAt).toBe(T0 + 10);
      expect(await store.check(token, T0 + 30)).toEqual({ ok: false, reason: "revoked" });
      expect(await store.revoke("0123456789abcdef", T0)).toBe("not-found");
      expect(await store.revoke("not an id", T0)).toBe("not-found");
      expect(await store.revoke("", T0)).toBe("not-found");
    });

    it("expires at expiresAt exactly", async () => {
      const { store } = await fresh();
      const { token } = await store.create({ name: "short", budget: BUDGET, expiresAt: T0 + 1000, now: T0 });
      expect((await store.check(token, T0 + 999)).ok).toBe(true);
      expect(await store.check(token, T0 + 1000)).toEqual({ ok: false, reason: "expired" });
      expect(await store.check(token, T0 + DAY)).toEqual({ ok: false, reason: "expired" });
    });

    it("answers unknown for an unknown id and for a wrong secret with a real id, even on a revoked key", async () => {
      const { store } = await fresh();
      const { key, token } = await store.create({ name: "ci", budget: BUDGET, now: T0 });
      const secret = parseToken(token)!.secret;
      expect(await store.check(`x402k_${"0".repeat(16)}_${secret}`, T0)).toEqual({ ok: false, reason: "unknown" });
      expect(await store.check(withWrongSecret(token), T0)).toEqual({ ok: false, reason: "unknown" });
      const other = await store.create({ name: "other", budget: BUDGET, now: T0 });
      expect(await store.check(`x402k_${key.id}_${parseToken(other.token)!.secret}`, T0)).toEqual({ ok: false, reason: "unknown" });
      await store.revoke(key.id, T0);
      expect(await store.check(withWrongSecret(token), T0)).toEqual({ ok: false, reason: "unknown" });
    });

    it("answers malformed for anything that is not a token", async () => {
      const { store } = await fresh();
      const { token } = await store.create({ name: "ci", budget: BUDGET, now: T0 });
      const malformed = [
        "",
        " ",
        "x402k_",
        token.replace("x402k_", "x402x_"),
        token.replace("x402k_", "X402K_"),
        `Bearer ${token}`,
        `${token} `,
        `${token}A`,
        token.slice(0, -1),
        token.replace(/_([^_]*)$/, "_é$1").slice(0, token.length),
        token.replace(/[0-9a-f]{16}/, "0123456789ABCDEF"),
        `${token.slice(0, -1)}\u{1F511}`,
        `${token.slice(0, -1)}=`,
        "x".repeat(10_000_000),
        token.repeat(1000),
      ];
      for (const value of malformed) expect(await store.check(value, T0), JSON.stringify(value.slice(0, 80))).toEqual({ ok: false, reason: "malformed" });
      for (const value of [undefined, null, 42, {}] as unknown as string[]) expect(await store.check(value, T0)).toEqual({ ok: false, reason: "malformed" });
    });

    it("stores neither the token nor the secret, only the secret's sha256", async () => {
      const { store, stored } = await fresh();
      const { token } = await store.create({ name: "ci", budget: BUDGET, now: T0 });
      const secret = parseToken(token)!.secret;
      const rows = dump(await stored());
      expect(rows).not.toContain(secret);
      expect(rows).not.toContain(token);
      expect(rows).not.toContain(Buffer.from(secret, "base64url").toString("hex"));
      expect(rows).toContain(hashSecret(secret));
    });

    it("mints a different id and secret every time", async () => {
      const { store } = await fresh();
      const tokens = await Promise.all(Array.from({ length: 20 }, (_, index) => store.create({ name: `k${index}`, budget: BUDGET, now: T0 })));
      expect(new Set(tokens.map(({ key }) => key.id)).size).toBe(20);
      expect(new Set(tokens.map(({ token }) => parseToken(token)!.secret)).size).toBe(20);
      expect(await store.list()).toHaveLength(20);
    });

    it("refuses bad input to create", async () => {
      const { store } = await fresh();
      const bad = [
        { name: "", budget: BUDGET },
        { name: "bell\u0007", budget: BUDGET },
        { name: "x".repeat(65), budget: BUDGET },
        { name: "neg", budget: { ...BUDGET, daily: -1n } },
        { name: "order", budget: { perPayment: 2n, perRequest: 1n, daily: 5n } },
        { name: "number", budget: { ...BUDGET, daily: 5 as unknown as bigint } },
        { name: "past", budget: BUDGET, expiresAt: T0 },
      ];
      for (const input of bad) await expect(store.create({ ...input, now: T0 }), input.name).rejects.toThrow();
      expect(await store.list()).toEqual([]);
    });

    it("hands out copies: changing a returned record changes nothing stored", async () => {
      const { store } = await fresh();
      const { key, token } = await store.create({ name: "ci", budget: BUDGET, now: T0 });
      key.revokedAt = T0;
      key.budget.daily = 1n;
      const listed = await store.list();
      listed[0]!.budget.daily = 2n;
      expect(await store.check(token, T0)).toMatchObject({ ok: true, key: { revokedAt: null, budget: BUDGET } });
    });
  });
}
