/**
 * One grant, many instances: 20 chats at once under a grant of K prices, spread over two app
 * instances that share one PostgreSQL database (each with its own connection pool and clients),
 * pay exactly K times. What Permit2 let the relayer pull, what the ledger committed under the
 * grant and what the journal shows delivered are the same K payments.
 */
import { createPublicClient, http, parseAbi, parseUnits, type Hex } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { grantsDependenciesOf } from "../../lib/app/grants-dependencies";
import { handleChatRequest } from "../../lib/chat/handle-chat-request";
import type { AppDependencies } from "../../lib/doors/app-dependencies";
import { PERMIT2 } from "../../lib/grants/grant-permit";
import { grantScope } from "../../lib/grants/grants";
import { handleCreateGrant, handlePrepareGrant } from "../../lib/grants/handle-grants-request";
import { decodeAll } from "../../lib/stream";
import { createStore } from "../../lib/store/create-store";
import { startSecondInstance } from "../support/second-instance";
import { startChatHarness, type ChatHarness } from "../support/chat-harness";
import { skipPostgresTests, startPostgresServer, type PostgresServerHandle } from "../support/postgres-server";

const K = 5;
const CHATS = 20;
const allowanceAbi = parseAbi([
  "function allowance(address owner, address token, address spender) view returns (uint160 amount, uint48 expiration, uint48 nonce)",
]);

let postgres: PostgresServerHandle | undefined;
let harness: ChatHarness;
let second: AppDependencies;

beforeAll(async () => {
  if (skipPostgresTests) return;
  postgres = await startPostgresServer();
  const url = await postgres.database();
  harness = await startChatHarness({ store: createStore({ database: { kind: "postgres", url } }) });
  // The second instance: the same configuration, its own store connection and clients.
  second = startSecondInstance(harness, url);
}, 120_000);

afterAll(async () => {
  await second?.store.close();
  await harness?.stop();
  await postgres?.stop();
});

describe.skipIf(skipPostgresTests)("a grant spent from two instances at once", () => {
  it(`${CHATS} concurrent chats under a grant of ${K} prices: exactly ${K} pay; pulls = ledger = journal`, { timeout: 180_000 }, async () => {
    const user = privateKeyToAccount(harness.devnet.accounts.user.privateKey as Hex);
    const weather = harness.devnet.services.find((service) => service.name === "weather")!;
    const price = parseUnits(weather.price, 6);
    const grantsDeps = grantsDependenciesOf(harness.deps);
    const json = (path: string, body: unknown) =>
      new Request(`http://127.0.0.1${path}`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
    const prepared = await handlePrepareGrant(
      json("/api/grants/prepare", { walletAddress: user.address, amount: String(Number(price * BigInt(K)) / 1e6) }),
      () => grantsDeps,
    );
    const { typedData } = (await prepared.json()) as { typedData: Record<string, unknown> };
    const created = await handleCreateGrant(json("/api/grants", { typedData, signature: await user.signTypedData(typedData as never) }), () => grantsDeps);
    expect(created.status).toBe(201);
    const { grant, token } = (await created.json()) as { grant: { id: string }; token: string };

    const chain = createPublicClient({ transport: http(harness.devnet.rpcUrl), cacheTime: 0 });
    const relayer = privateKeyToAccount(harness.devnet.accounts.agent.privateKey as Hex).address;
    const allowance = async () =>
      (
        await chain.readContract({ address: PERMIT2, abi: allowanceAbi, functionName: "allowance", args: [user.address, harness.devnet.usdc as Hex, relayer] })
      )[0];
    const balanceBefore = await harness.usdcBalance(user.address);
    expect(await allowance()).toBe(price * BigInt(K));

    const instances = [harness.deps, second];
    const turns = await Promise.all(
      Array.from({ length: CHATS }, async (_, index) => {
        const response = await handleChatRequest(
          new Request("http://127.0.0.1/api/chat", {
            method: "POST",
            headers: { "content-type": "application/json", authorization: `Bearer ${token}` },
            body: JSON.stringify({
              messages: [{ role: "user", content: `Call ${weather.url}?city=City${index}` }],
              walletAddress: user.address,
              spendingLimits: { perPayment: "1", perRequest: "1", daily: "5" },
            }),
          }),
          () => instances[index % 2]!,
        );
        expect(response.status).toBe(200);
        const events = decodeAll(await response.text()).flatMap((item) => (item.kind === "event" ? [item.event] : []));
        return events.flatMap((event) => (event.type === "payment" ? [event.payment] : []));
      }),
    );
    const finals = turns.map((payments) => payments.at(-1));
    const delivered = finals.filter((payment) => payment?.status === "delivered");
    expect(delivered).toHaveLength(K);
    // The others were refused before anything moved, by the grant's budget in the shared ledger.
    for (const payment of finals.filter((candidate) => candidate?.status !== "delivered")) {
      expect(payment, JSON.stringify(payment)).toMatchObject({ status: "failed", reason: "limit-exceeded", message: expect.stringMatching(/your grant of/) });
    }

    const spent = price * BigInt(K);
    expect(await harness.usdcBalance(user.address)).toBe(balanceBefore - spent);
    expect(await allowance()).toBe(0n);
    const ledger = await harness.deps.store.ledger.spentInScope(grantScope(grant.id));
    expect(ledger).toEqual({ settled: spent, reserved: 0n });
    const payerKey = harness.deps.grantPayer!((await harness.deps.store.grants.get(grant.id))!).account.address;
    const journal = await second.store.journal.history({ payer: payerKey, limit: 100 });
    expect(journal.filter((entry) => entry.status === "delivered")).toHaveLength(K);
    expect(journal.filter((entry) => entry.status === "delivered").reduce((sum, entry) => sum + BigInt(entry.amount ?? 0), 0n)).toBe(spent);
  });
});
