import { describe, expect, it } from "vitest";
import type { ApiKeyRecord } from "../../lib/access/api-keys";
import { MemoryApiKeyStore } from "../../lib/access/memory-api-key-store";
import { formatCreated, formatList, formatRevoked, formatTime } from "./output";
import { runCommand } from "./run-command";

const NOW = Date.UTC(2026, 0, 1, 12, 0, 0);
const DAY = 24 * 60 * 60 * 1000;
const KEY: ApiKeyRecord = {
  id: "0123456789abcdef",
  name: "ci",
  budget: { perPayment: 500_000n, perRequest: 1_000_000n, daily: 5_000_000n },
  agentWallet: true,
  createdAt: NOW,
  expiresAt: NOW + 30 * DAY,
  revokedAt: null,
};
const TOKEN = `x402k_0123456789abcdef_${"A".repeat(43)}`;

describe("api-keys output", () => {
  it("formats times in UTC to the minute", () => {
    expect(formatTime(NOW + 59_999)).toBe("2026-01-01 12:00 UTC");
  });

  it("shows the created key, its budget in USDC and the token once, saying it cannot be shown again", () => {
    const text = formatCreated(KEY, TOKEN);
    expect(text).toContain("Created API key 0123456789abcdef (ci)");
    expect(text).toContain("0.5 USDC per payment, 1 USDC per request, 5 USDC per day");
    expect(text).toContain("agent wallet: yes");
    expect(text).toContain("expires:      2026-01-31 12:00 UTC");
    expect(text).toMatch(/cannot be shown again/);
    expect(text.split(TOKEN)).toHaveLength(2);
    expect(formatCreated({ ...KEY, agentWallet: false, expiresAt: null }, TOKEN)).toMatch(/agent wallet: no\n {2}expires: {6}never/);
  });

  it("lists keys as an aligned table with budgets in USDC, the agent wallet as yes/no, expiry and revocation", () => {
    const keys: ApiKeyRecord[] = [
      {
        ...KEY,
        id: "fedcba9876543210",
        name: "nightly build",
        agentWallet: false,
        expiresAt: null,
        revokedAt: NOW + DAY,
        budget: { perPayment: 1n, perRequest: 10n, daily: 25_000_000n },
      },
      { ...KEY, expiresAt: NOW - 1 },
    ];
    expect(formatList(keys, NOW).split("\n")).toEqual([
      "ID                NAME           PER PAYMENT  PER REQUEST  DAILY  AGENT WALLET  CREATED               EXPIRES                         REVOKED",
      "fedcba9876543210  nightly build  0.000001     0.00001      25     no            2026-01-01 12:00 UTC  never                           2026-01-02 12:00 UTC",
      "0123456789abcdef  ci             0.5          1            5      yes           2026-01-01 12:00 UTC  2026-01-01 11:59 UTC (expired)  -",
    ]);
  });

  it("says how to make a key when there is none", () => {
    expect(formatList([], NOW)).toMatch(/^No API keys yet\. Make one with: npm run api-keys -- create/);
  });

  it("words each revoke outcome", () => {
    expect(formatRevoked(KEY.id, "revoked")).toBe("Revoked API key 0123456789abcdef: it stops working at once.");
    expect(formatRevoked(KEY.id, "already-revoked")).toBe("API key 0123456789abcdef was already revoked.");
    expect(formatRevoked(KEY.id, "not-found")).toMatch(/^No API key has the id 0123456789abcdef/);
  });
});

describe("runCommand", () => {
  it("creates, lists and revokes on a store, exiting 0, and 1 for an unknown id", async () => {
    const store = new MemoryApiKeyStore();
    const created = await runCommand({ kind: "create", name: "ci", budget: KEY.budget, agentWallet: true, expiresAt: null }, store, NOW);
    expect(created.code).toBe(0);
    const token = /^x402k_\S+$/m.exec(created.stdout)?.[0];
    const [key] = await store.list();
    expect(token && (await store.check(token, NOW)).ok).toBe(true);
    expect((await runCommand({ kind: "list" }, store, NOW)).stdout).toContain(`${key!.id}  ci`);
    expect(await runCommand({ kind: "revoke", id: key!.id }, store, NOW + 1)).toEqual({ code: 0, stdout: formatRevoked(key!.id, "revoked"), stderr: "" });
    expect(await runCommand({ kind: "revoke", id: key!.id }, store, NOW + 2)).toEqual({
      code: 0,
      stdout: formatRevoked(key!.id, "already-revoked"),
      stderr: "",
    });
    expect(await runCommand({ kind: "revoke", id: "0000000000000000" }, store, NOW)).toMatchObject({ code: 1, stdout: "" });
    // The revoked column now holds a time instead of "-".
    expect((await runCommand({ kind: "list" }, store, NOW)).stdout.split("\n")[1]).toMatch(/never +2026-01-01 12:00 UTC$/);
  });
});
