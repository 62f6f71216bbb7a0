import { describe, expect, it } from "vitest";
import { AppError } from "../errors";
import { createSessionToken, SESSION_COOKIE } from "../auth/session-cookie";
import type { LimitSettings } from "../limits/spending-limits-input";
import { MemoryApiKeyStore } from "./memory-api-key-store";
import { authorizeAgentWallet, resolveCaller, type Caller } from "./caller";
import { callerLimits, describeLimits } from "./caller-limits";

const SECRET = "a-session-secret-of-at-least-thirty-two-chars";
const NOW = Date.UTC(2026, 10, 23, 12);
const ACCOUNT_BUDGET = { perPayment: 100n, perRequest: 200n, daily: 500n };
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
    const resolve = (headers: Record<string, string>) => resolveCaller({ request: request(headers), apiKeys, sessionSecret: SECRET, accountBudget: ACCOUNT_BUDGET, now: NOW });
    expect(await resolve({ authorization: `Bearer ${token}` })).toMatchObject({ kind: "key", name: "ci", agentWallet: true, budget: { daily: 3n } });
    const address = "0x52908400098527886E0F7030069857D2E4169EE7";
    const cookie = `${SESSION_COOKIE}=${createSessionToken({ address, chainId: 1, issuedAt: NOW, expiresAt: NOW + 1_000 }, SECRET)}`;
    expect(await resolve({ cookie })).toEqual({ kind: "account", address, budget: ACCOUNT_BUDGET });
    // A session signed with another key, or one that ended, is no session.
    expect(await resolve({ cookie: `${SESSION_COOKIE}=${createSessionToken({ address, chainId: 1, issuedAt: NOW, expiresAt: NOW + 1_000 }, `${SECRET}x`)}` })).toEqual({ kind: "anonymous" });
    expect(await resolve({})).toEqual({ kind: "anonymous" });
  });

  it("refuses a presented key that fails, whatever else the request carries: never anonymous", async () => {
    const apiKeys = new MemoryApiKeyStore();
    const { key, token } = await apiKeys.create({ name: "old", budget: { perPayment: 1n, perRequest: 1n, daily: 1n }, now: NOW });
    await apiKeys.revoke(key.id, NOW);
    for (const authorization of [`Bearer ${token}`, "Bearer nope", "Bearer", "Token abc"]) {
      const error = await thrown(() => resolveCaller({ request: request({ authorization }), apiKeys, sessionSecret: SECRET, accountBudget: ACCOUNT_BUDGET, now: NOW }));
      expect(error.status, authorization).toBe(401);
      expect(error.headers["WWW-Authenticate"], authorization).toMatch(/^Bearer realm="x402-agent", error="invalid_(token|request)"$/);
    }
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
    expect(limits.limits).toEqual({ perPayment: 5n, perRequest: 7n, daily: 8n, scope: { key: "key:abc", label: "the API key “ci”'s budget", walletDailyCap: 300n } });
    expect(limits.clamped).toEqual(["perRequest"]);
  });

  it("leaves a caller paying from its own wallet to the server's limits, with no budget scope", () => {
    const caller: Caller = { kind: "key", id: "abc", name: "ci", agentWallet: false, budget: { perPayment: 5n, perRequest: 7n, daily: 9n } };
    expect(callerLimits(undefined, settings, caller, { pays: false, dailyCap: 300n }).limits).toEqual({ perPayment: 10n, perRequest: 20n, daily: 100n });
  });
});
