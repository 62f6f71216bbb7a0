/**
 * The reconciler's sweep of grants that simply expire, on the local world with two app
 * instances sharing one PostgreSQL database: an `upto` payment under a grant leaves float on the
 * payer account; once the grant has expired one sweep gives exactly that float back to the
 * wallet (balances on chain) and the grant's view says so; a second sweep does nothing; and two
 * sweeps started at once on the two instances send one return.
 */
import { createPublicClient, http, parseUnits, type Hex } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { grantsDependenciesOf } from "../../lib/app/grants-dependencies";
import type { AppDependencies } from "../../lib/doors/app-dependencies";
import { reconcileOnce, type ReconcileRunReport } from "../../lib/doors/reconcile-once";
import { handleListGrants, type GrantsDependencies } from "../../lib/grants/handle-grants-request";
import type { GrantView } from "../../lib/grants/grant-view";
import { formatUsdc } from "../../lib/money";
import { createStore } from "../../lib/store/create-store";
import { startSecondInstance } from "../support/second-instance";
import { startChatHarness, type ChatHarness } from "../support/chat-harness";
import { grantRequest, signGrant } from "../support/grant-signing";
import { skipPostgresTests, startPostgresServer, type PostgresServerHandle } from "../support/postgres-server";

const HOUR = 60 * 60 * 1000;
/** The apps' clock: moved ahead to see grants expire, as the database would judge them at that time. */
let ahead = 0;
const now = () => Date.now() + ahead;

let postgres: PostgresServerHandle | undefined;
let harness: ChatHarness;
let second: AppDependencies;
let grantsDeps: GrantsDependencies;

beforeAll(async () => {
  if (skipPostgresTests) return;
  postgres = await startPostgresServer();
  const url = await postgres.database();
  harness = await startChatHarness({ store: createStore({ database: { kind: "postgres", url } }), now });
  // The second instance: the same configuration and clock, its own store connection and clients.
  second = startSecondInstance(harness, url, { now });
  grantsDeps = grantsDependenciesOf(harness.deps);
}, 120_000);

afterAll(async () => {
  await second?.store.close();
  await harness?.stop();
  await postgres?.stop();
});

const user = () => privateKeyToAccount(harness.devnet.accounts.user.privateKey as Hex);
const rowMeter = () => harness.devnet.services.find((service) => service.name === "row-meter")!;
const silent = () => {};

/** An `upto` call of `rows` rows under a fresh grant of one ceiling: the float it leaves on the payer account. */
async function floatLeftBy(rows: number): Promise<{ grant: { id: string; token: string }; float: bigint; settled: bigint }> {
  const ceiling = parseUnits(rowMeter().price, 6);
  const grant = await signGrant(grantsDeps, user(), ceiling);
  const url = `${new URL(rowMeter().url).origin}/metered/data/rows?rows=${rows}&dataset=sales`;
  const result = await harness.chat(
    { messages: [{ role: "user", content: `Call ${url}` }], walletAddress: user().address, spendingLimits: { perPayment: "1", perRequest: "1", daily: "5" } },
    { headers: { authorization: `Bearer ${grant.token}` } },
  );
  expect(result.finish?.finishReason, JSON.stringify(result.payments.at(-1))).toBe("payment-complete");
  const settled = BigInt(rows) * BigInt(rowMeter().metering!.unitPrice);
  return { grant, float: ceiling - settled, settled };
}

async function viewOf(grant: { id: string; token: string }): Promise<GrantView> {
  const listed = await handleListGrants(grantRequest("GET", "/api/grants", undefined, { authorization: `Bearer ${grant.token}` }), () => grantsDeps);
  const { grants } = (await listed.json()) as { grants: GrantView[] };
  return grants.find((view) => view.id === grant.id)!;
}

describe.skipIf(skipPostgresTests)("the reconciler's sweep of expired grants", () => {
  it("returns exactly an expired grant's float once; a second sweep does nothing", { timeout: 120_000 }, async () => {
    const wallet = user().address;
    const payer = harness.deps.grantAccountOf!(wallet);
    const { grant, float, settled } = await floatLeftBy(12);
    expect(float).toBeGreaterThan(0n);
    expect(await harness.usdcBalance(payer)).toBe(float);
    const balance = await harness.usdcBalance(wallet);

    // Active: the float stays for the grant's next payment.
    const early = await reconcileOnce(harness.deps, silent);
    expect(early.grants).toEqual({ checked: 0, swept: 0, floatReturned: "0", failed: 0 });
    expect(await harness.usdcBalance(payer)).toBe(float);

    ahead = 2 * HOUR;
    const swept = await reconcileOnce(harness.deps, silent);
    expect(swept.grants).toEqual({ checked: 1, swept: 1, floatReturned: formatUsdc(float), failed: 0 });
    expect(await harness.usdcBalance(wallet)).toBe(balance + float);
    expect(await harness.usdcBalance(payer)).toBe(0n);
    const view = await viewOf(grant);
    expect(view).toMatchObject({ state: "expired", floatReturned: formatUsdc(float), sweptAt: expect.any(String) });
    // The journal still holds the payment at what it settled: the float was never spent.
    const journal = await harness.deps.store.journal.history({ payer, limit: 10 });
    expect(journal.find((entry) => entry.status === "delivered")?.amount).toBe(settled);

    const again = await reconcileOnce(second, silent);
    expect(again.grants).toEqual({ checked: 0, swept: 0, floatReturned: "0", failed: 0 });
    expect(await harness.usdcBalance(wallet)).toBe(balance + float);
  });

  it("two sweeps started at once on two instances send one return", { timeout: 120_000 }, async () => {
    ahead = 0;
    const wallet = user().address;
    const payer = harness.deps.grantAccountOf!(wallet);
    const { grant, float } = await floatLeftBy(5);
    expect(await harness.usdcBalance(payer)).toBe(float);
    const balance = await harness.usdcBalance(wallet);
    const chain = createPublicClient({ transport: http(harness.devnet.rpcUrl), cacheTime: 0 });
    const relayer = privateKeyToAccount((harness.env.GRANT_RELAYER_PRIVATE_KEY ?? harness.devnet.accounts.agent.privateKey) as Hex).address;
    const sent = await chain.getTransactionCount({ address: relayer, blockTag: "pending" });

    ahead = 4 * HOUR;
    // Blocks every second instead of at each transaction: a return in flight is not yet mined
    // when the other instance reads the balance, as on a real chain.
    await chain.request({ method: "evm_setAutomine" as never, params: [false] as never });
    await chain.request({ method: "evm_setIntervalMining" as never, params: [1] as never });
    let reports: ReconcileRunReport[];
    try {
      reports = await Promise.all([reconcileOnce(harness.deps, silent), reconcileOnce(second, silent)]);
    } finally {
      await chain.request({ method: "evm_setIntervalMining" as never, params: [0] as never });
      await chain.request({ method: "evm_setAutomine" as never, params: [true] as never });
    }
    const returned = reports.map((report) => report.grants.floatReturned);
    expect(returned.sort()).toEqual(["0", formatUsdc(float)]);
    expect(reports.reduce((sum, report) => sum + report.grants.failed, 0)).toBe(0);
    // One transaction from the relayer: the return, sent once.
    expect(await chain.getTransactionCount({ address: relayer, blockTag: "pending" })).toBe(sent + 1);
    expect(await harness.usdcBalance(wallet)).toBe(balance + float);
    expect(await harness.usdcBalance(payer)).toBe(0n);
    expect(await viewOf(grant)).toMatchObject({ state: "expired", floatReturned: formatUsdc(float), sweptAt: expect.any(String) });
  });
});
