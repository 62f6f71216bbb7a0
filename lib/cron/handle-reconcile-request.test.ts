/**
 * The cron route that runs the reconciler: closed without CRON_SECRET, 401 without the right
 * Bearer token, and a report of what it looked at with it.
 */
import { describe, expect, it } from "vitest";
import { offlineNetwork, textModel } from "../../tests/support/offline-fixtures";
import { createAppDependencies } from "../app/create-app-dependencies";
import { parseEnv } from "../env";
import { createMemoryStore } from "../store/create-memory-store";
import { handleReconcileRequest } from "./handle-reconcile-request";

const SECRET = "cron-secret-0123456789abcdef";

function dependencies(env: Record<string, string>) {
  return createAppDependencies(parseEnv(env), {
    network: offlineNetwork,
    store: createMemoryStore(),
    baseModel: { model: textModel("hi"), modelId: "test", isDemo: false },
  });
}

const get = (headers: Record<string, string> = {}) => new Request("http://127.0.0.1/api/cron/reconcile", { headers });

describe("GET /api/cron/reconcile", () => {
  it("is closed (503) when no CRON_SECRET is configured", async () => {
    const response = await handleReconcileRequest(get({ authorization: "Bearer anything" }), () => dependencies({}));
    expect(response.status).toBe(503);
  });

  it.each([[{}], [{ authorization: "Bearer wrong-secret-0123456789" }], [{ authorization: SECRET }]])(
    "refuses %j with 401 and WWW-Authenticate",
    async (headers) => {
      const response = await handleReconcileRequest(get(headers), () => dependencies({ CRON_SECRET: SECRET }));
      expect(response.status).toBe(401);
      expect(response.headers.get("www-authenticate")).toMatch(/^Bearer/);
      expect(response.headers.get("content-type")).toBe("application/problem+json");
    },
  );

  it("runs the reconciler with the right token and reports what it saw", async () => {
    const deps = dependencies({ CRON_SECRET: SECRET });
    await deps.store.journal.record({
      id: "pay_1",
      status: "pending",
      at: Date.now(),
      payer: "0x52908400098527886E0F7030069857D2E4169EE7",
      payerKind: "user",
      nonce: `0x${"12".repeat(32)}`,
      validBefore: BigInt(Math.floor(Date.now() / 1000) + 300),
      amount: 15_000n,
    });
    const response = await handleReconcileRequest(get({ authorization: `Bearer ${SECRET}` }), () => deps);
    expect(response.status).toBe(200);
    // The offline chain cannot be read, so the payment stays pending: nothing is released blindly.
    // No relayer here, so no grant pays and none has float to sweep (tests/integration/grant-sweep.test.ts sweeps).
    expect(await response.json()).toEqual({
      checked: 1,
      settled: 0,
      released: 0,
      stillPending: 1,
      inFlight: 0,
      failed: 0,
      grants: { checked: 0, swept: 0, floatReturned: "0", failed: 0 },
    });
    expect(await deps.store.journal.unsettled(10)).toHaveLength(1);
  });

  it("sweeps ended grants in the same run, and reports a sweep the chain could not do without failing the run", async () => {
    const deps = dependencies({ CRON_SECRET: SECRET, GRANT_RELAYER_PRIVATE_KEY: `0x${"42".repeat(32)}` });
    const made = await deps.store.grants.create({
      walletAddress: "0x52908400098527886E0F7030069857D2E4169EE7",
      amount: 50_000n,
      expiresAt: Date.now() - 1_000,
      nonce: 0n,
      permitTransaction: `0x${"ab".repeat(32)}`,
    });
    expect(made).not.toBe("duplicate");
    const response = await handleReconcileRequest(get({ authorization: `Bearer ${SECRET}` }), () => deps);
    expect(response.status).toBe(200);
    // The offline chain cannot be read: the grant stays unswept for the next run.
    expect(((await response.json()) as { grants: unknown }).grants).toEqual({ checked: 1, swept: 0, floatReturned: "0", failed: 1 });
    expect(await deps.store.grants.endedUnswept(10)).toHaveLength(1);
  });
});
