/**
 * The reconciler's sweep of ended grants (sweep-ended-grants.ts): it looks at most `limit`
 * ended grants per run, reports what went back and what is now swept, and a failure is counted
 * and logged, never thrown.
 */
import { describe, expect, it } from "vitest";
import type { FloatReturn } from "./grant-float";
import type { GrantRecord } from "./grants";
import { MemoryGrantStore } from "./memory-grant-store";
import { sweepEndedGrants } from "./sweep-ended-grants";

const HOUR = 60 * 60 * 1000;
const T0 = Date.UTC(2026, 10, 27, 12);
const wallet = (index: number) => `0x${index.toString(16).padStart(40, "0")}` as `0x${string}`;

async function storeWith(count: number): Promise<MemoryGrantStore> {
  const store = new MemoryGrantStore();
  for (let index = 1; index <= count; index++) {
    await store.create({
      walletAddress: wallet(index),
      amount: 50n,
      expiresAt: T0 + index,
      nonce: 0n,
      permitTransaction: `0x${"cd".repeat(32)}`,
      now: T0 - HOUR,
    });
  }
  return store;
}

describe("sweeping ended grants", () => {
  it("looks at no more than the limit per run, ended grants only, and adds up what went back", async () => {
    const store = await storeWith(5);
    const seen: string[] = [];
    const returnFloat = async (grant: GrantRecord): Promise<FloatReturn> => {
      seen.push(grant.walletAddress);
      return { state: "returned", returned: 3n, swept: grant.walletAddress !== wallet(2) };
    };
    const logs: Record<string, unknown>[] = [];
    // At T0 + 4 the first four have expired; the limit lets three through, earliest expiry first.
    const report = await sweepEndedGrants({ grants: store, returnFloat, storeNow: () => T0 + 4, limit: 3, log: (entry) => logs.push(entry) });
    expect(seen).toEqual([wallet(1), wallet(2), wallet(3)]);
    expect(report).toEqual({ checked: 3, swept: 2, floatReturned: 9n, failed: 0 });
    expect(logs.filter((entry) => entry.event === "grant-swept")).toHaveLength(3);
  });

  it("counts a grant whose return failed, or that another holds, and carries on; never throws", async () => {
    const store = await storeWith(3);
    const outcomes: (FloatReturn | Error)[] = [new Error("rpc down"), { state: "claimed-elsewhere" }, { state: "returned", returned: 0n, swept: true }];
    const logs: Record<string, unknown>[] = [];
    const report = await sweepEndedGrants({
      grants: store,
      returnFloat: async () => {
        const next = outcomes.shift()!;
        if (next instanceof Error) throw next;
        return next;
      },
      storeNow: () => T0 + HOUR,
      log: (entry) => logs.push(entry),
    });
    expect(report).toEqual({ checked: 3, swept: 1, floatReturned: 0n, failed: 1 });
    expect(logs).toContainEqual(expect.objectContaining({ level: "error", event: "grant-sweep-failed", error: "Error: rpc down" }));

    const broken = { endedUnswept: async () => Promise.reject(new Error("database gone")) };
    const nothing = await sweepEndedGrants({ grants: broken, returnFloat: async () => ({ state: "kept" }), log: () => {} });
    expect(nothing).toEqual({ checked: 0, swept: 0, floatReturned: 0n, failed: 1 });
  });
});
