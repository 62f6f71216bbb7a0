import { describe, expect, it } from "vitest";
import { AppError } from "../errors";
import { createSessionToken, SESSION_COOKIE } from "../auth/session-cookie";
import type { LimitSettings } from "../limits/spending-limits-input";
import { MemoryApiKeyStore } from "./memory-api-key-store";
import { accountCaller, authorizeAgentWallet, mayCallUnlisted, OPEN_SIGN_IN_POOL, resolveCaller, type AccountAccess, type Caller } from "./caller";
import { callerLimits, describeLimits } from "./caller-limits";

const SECRET = "a-session-secret-of-at-least-thirty-two-chars";
const NOW = Date.UTC(2026, 10, 23, 12);
const ACCOUNT_BUDGET = { perPayment: 100n, perRequest: 200n, daily: 500n };
const OPEN_BUDGET = { perPayment: 10n, perRequest: 20n, daily: 50n };
const access = (mode: AccountAccess["mode"], allowedWallets: string[] = []): AccountAccess => ({
  mode,
  accountBudget: ACCOUNT_BUDGET,
  allowedWallets,
  openSignIn: { budget: OPEN_BUDGET, dailyCap: 1_000n },
});
const request = (headers: Record<string, string> = {}) => new Request("http://127.0.0.1/api/chat", { method: "POST", headers });
const thrown = async (work: () => unknown): Promise<AppError> => {
  try {
    await work();
  } catch (error) {
    if (AppError.isInstance(error)) return error;
    throw error;
  }
  throw new Error("nothing was thrown");
};

describe("resolveCaller", () => {
  it("names a key, a signed-in wallet, or nobody", async () => {
    const apiKeys = new MemoryApiKeyStore();
    const { token } = await apiKeys.create({ name: "ci", budget: { perPayment: 1n, perRequest: 2n, daily: 3n }, now: NOW });
    const resolve = (headers: Record<string, string>) =>
      resolveCaller({ request: request(headers), apiKeys, sessionSecret: SECRET, chainId: 1, access: access("open"), now: NOW });
    expect(await resolve({ authorization: `Bearer ${token}` })).toMatchObject({ kind: "key", name: "ci", agentWallet: true, budget: { daily: 3n } });
    const address = "0x52908400098527886E0F7030069857D2E4169EE7";
    const cookie = `${SESSION_COOKIE}=${createSessionToken({ address, chainId: 1, issuedAt: NOW, expiresAt: NOW + 1_000 }, SECRET)}`;
    expect(await resolve({ cookie })).toEqual({ kind: "account", address, budget: ACCOUNT_BUDGET, agentWallet: true });
    // A session signed with another key, or one that ended, is no session.
    expect(
      await resolve({ cookie: `${SESSION_COOKIE}=${createSessionToken({ address, chainId: 1, issuedAt: NOW, expiresAt: NOW + 1_000 }, `${SECRET}x`)}` }),
    ).toEqual({ kind: "anonymous" });
    expect(await resolve({})).toEqual({ kind: "anonymous" });
  });

  it("refuses a presented key that fails, whatever else the request carries: never anonymous", async () => {
    const apiKeys = new MemoryApiKeyStore();
    const { key, token } = await apiKeys.create({ name: "old", budget: { perPayment: 1n, perRequest: 1n, daily: 1n }, now: NOW });
    await apiKeys.revoke(key.id, NOW);
    for (const authorization of [`Bearer ${token}`, "Bearer nope", "Bearer", "Token abc"]) {
      const error = await thrown(() =>
        resolveCaller({ request: request({ authorization }), apiKeys, sessionSecret: SECRET, chainId: 1, access: access("open"), now: NOW }),
      );
      expect(error.status, authorization).toBe(401);
      expect(error.headers["WWW-Authenticate"], authorization).toMatch(/^Bearer realm="x402-agent", error="invalid_(token|request)"$/);
    }
  });
});

describe("signed-in wallets and the agent wallet", () => {
  const listed = "0x52908400098527886E0F7030069857D2E4169EE7";
  const stranger = "0x8ba1f109551bD432803012645Ac136ddd64DBA72";

  it("refuses a session for another chain on every route that reads it, as a bad credential", async () => {
    const cookie = `${SESSION_COOKIE}=${createSessionToken({ address: listed, chainId: 8453, issuedAt: NOW, expiresAt: NOW + 1_000 }, SECRET)}`;
    const error = await thrown(() =>
      resolveCaller({
        request: request({ cookie }),
        apiKeys: new MemoryApiKeyStore(),
        sessionSecret: SECRET,
        chainId: 31337,
        access: access("open"),
        now: NOW,
      }),
    );
    expect(error.status).toBe(401);
    expect(error.safeMessage).toMatch(/chain 8453/);
  });

  it("gives the agent wallet only to listed wallets where access is authenticated; any wallet a small pooled budget where it is signed-in", async () => {
    const authenticated = access("authenticated", [listed.toLowerCase()]);
    expect(accountCaller(listed, authenticated)).toEqual({ kind: "account", address: listed, budget: ACCOUNT_BUDGET, agentWallet: true });
    const refusedCaller = accountCaller(stranger, authenticated);
    expect(refusedCaller).toMatchObject({ agentWallet: false });
    const error = await thrown(() => authorizeAgentWallet(refusedCaller, "authenticated", true));
    expect(error.status).toBe(403);
    expect(error.safeMessage).toMatch(/not allowed it/);
    // Paying from its own wallet needs no permission.
    expect(() => authorizeAgentWallet(refusedCaller, "authenticated", false)).not.toThrow();

    const open = access("signed-in", [listed.toLowerCase()]);
    expect(accountCaller(listed, open)).toEqual({ kind: "account", address: listed, budget: ACCOUNT_BUDGET, agentWallet: true });
    expect(accountCaller(stranger, open)).toEqual({
      kind: "account",
      address: stranger,
      budget: OPEN_BUDGET,
      agentWallet: true,
      pool: { key: OPEN_SIGN_IN_POOL, dailyLimit: 1_000n },
    });
    expect(() => authorizeAgentWallet(accountCaller(stranger, open), "signed-in", true)).not.toThrow();
    expect((await thrown(() => authorizeAgentWallet({ kind: "anonymous" }, "signed-in", true))).status).toBe(401);
  });

  it("counts an open sign-in's payments in its own budget and in the pool all of them share", () => {
    const settings: LimitSettings = { defaults: { perPayment: 1n, perRequest: 1n, daily: 1n }, caps: { perPayment: 1n, perRequest: 1n, daily: 1n } };
    const limits = callerLimits(undefined, settings, accountCaller(stranger, access("signed-in")), { pays: true, dailyCap: 5_000n }).limits;
    expect(limits).toMatchObject({ perPayment: 10n, perRequest: 20n, daily: 50n });
    expect(limits.scope).toMatchObject({
      key: `account:${stranger.toLowerCase()}`,
      walletDailyCap: 5_000n,
      pool: { key: OPEN_SIGN_IN_POOL, dailyLimit: 1_000n },
    });
  });

  it("lets only callers who may spend the agent wallet have the server call URLs no listing named", () => {
    const key = (agentWallet: boolean): Caller => ({ kind: "key", id: "k", name: "k", agentWallet, budget: ACCOUNT_BUDGET });
    expect(mayCallUnlisted({ kind: "anonymous" }, "open")).toBe(true);
    expect(mayCallUnlisted({ kind: "anonymous" }, "authenticated")).toBe(false);
    expect(mayCallUnlisted({ kind: "anonymous" }, "signed-in")).toBe(false);
    expect(mayCallUnlisted(key(true), "authenticated")).toBe(true);
    expect(mayCallUnlisted(key(false), "authenticated")).toBe(false);
    expect(mayCallUnlisted(accountCaller(stranger, access("authenticated")), "authenticated")).toBe(false);
    expect(mayCallUnlisted(accountCaller(stranger, access("signed-in")), "signed-in")).toBe(true);
  });
});

describe("authorizeAgentWallet", () => {
  const key = (agentWallet: boolean): Caller => ({ kind: "key", id: "k", name: "k", agentWallet, budget: { perPayment: 1n, perRequest: 1n, daily: 1n } });
  it("lets anyone use an open agent wallet, only named callers an authenticated one, and never a key without permission", async () => {
    expect(() => authorizeAgentWallet({ kind: "anonymous" }, "open", true)).not.toThrow();
    expect((await thrown(() => authorizeAgentWallet({ kind: "anonymous" }, "authenticated", true))).status).toBe(401);
    expect(() => authorizeAgentWallet(key(true), "authenticated", true)).not.toThrow();
    expect((await thrown(() => authorizeAgentWallet(key(false), "open", true))).status).toBe(403);
    // Paying from one's own wallet needs no permission.
    expect(() => authorizeAgentWallet({ kind: "anonymous" }, "authenticated", false)).not.toThrow();
    expect(() => authorizeAgentWallet(key(false), "authenticated", false)).not.toThrow();
  });
});

describe("callerLimits", () => {
  const settings: LimitSettings = { defaults: { perPayment: 10n, perRequest: 20n, daily: 100n }, caps: { perPayment: 50n, perRequest: 80n, daily: 1_000n } };
  const wallet = { pays: true, dailyCap: 300n };

  it("holds an anonymous caller to the server's caps and the wallet's cap", () => {
    const limits = callerLimits({ perPayment: "0.00004", daily: 5 }, settings, { kind: "anonymous" }, wallet);
    expect(limits.limits).toEqual({ perPayment: 40n, perRequest: 20n, daily: 300n });
    expect(limits.clamped).toEqual(["daily"]);
    expect(describeLimits(limits)).toBe("per-payment=0.00004 (requested), per-request=0.00002 (default), daily=0.0003 (wallet cap); clamped=daily");
  });

  it("holds a named caller to its budget, counted under its own key, with the wallet's cap on top", () => {
    const caller: Caller = { kind: "key", id: "abc", name: "ci", agentWallet: true, budget: { perPayment: 5n, perRequest: 7n, daily: 9n } };
    const limits = callerLimits({ perRequest: 1, daily: "0.000008" }, settings, caller, wallet);
    expect(limits.limits).toEqual({
      perPayment: 5n,
      perRequest: 7n,
      daily: 8n,
      scope: { key: "key:abc", label: "the API key “ci”'s budget", walletDailyCap: 300n },
    });
    expect(limits.clamped).toEqual(["perRequest"]);
  });

  it("leaves a caller paying from its own wallet to the server's limits, with no budget scope", () => {
    const caller: Caller = { kind: "key", id: "abc", name: "ci", agentWallet: false, budget: { perPayment: 5n, perRequest: 7n, daily: 9n } };
    expect(callerLimits(undefined, settings, caller, { pays: false, dailyCap: 300n }).limits).toEqual({ perPayment: 10n, perRequest: 20n, daily: 100n });
  });
});
