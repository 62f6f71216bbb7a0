/**
 * One payment channel, two instances: 50 calls at once to a channel service, spread over two
 * app instances that share one PostgreSQL database (each its own connection pool, clients and
 * process queue), under a caller's daily budget of K prices. Exactly K are paid and the rest are
 * refused by the budget before anything is signed; no call meets a voucher conflict (the
 * service accepts a voucher only at its charged amount plus the price, so two instances signing
 * on one channel at once would lose calls to `cumulative_amount_mismatch`). What the ledger
 * committed under the budget, what the journal shows delivered, what the service claimed on
 * chain and what its payee received are the same K prices.
 */
import { getAddress, parseUnits, type Hex } from "viem";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { purchaseDependenciesOf } from "../../lib/agent/agent-dependencies";
import { PaymentTracker } from "../../lib/agent/purchase/payment-tracker";
import { runPurchase, type PurchaseOutcome } from "../../lib/agent/purchase/run-purchase";
import { localAccount } from "../../lib/crypto/secp256k1";
import type { AppDependencies } from "../../lib/doors/app-dependencies";
import { StreamWriter } from "../../lib/stream";
import { createStore } from "../../lib/store/create-store";
import { BATCH_SETTLEMENT_ADDRESS } from "@x402/evm";
import { createPublicClient, http } from "viem";
import { loadContractArtifact } from "../../devnet/contracts/contract-artifacts";
import { startSecondInstance } from "../support/second-instance";
import { startChatHarness, type ChatHarness } from "../support/chat-harness";
import { skipPostgresTests, startPostgresServer, type PostgresServerHandle } from "../support/postgres-server";

const K = 12;
const CALLS = 50;
const SCOPE = "key:channel-concurrency";

let postgres: PostgresServerHandle | undefined;
let harness: ChatHarness;
let second: AppDependencies;

beforeAll(async () => {
  if (skipPostgresTests) return;
  postgres = await startPostgresServer();
  const url = await postgres.database();
  // No timed claim rounds and no heartbeat: every block is one the test caused.
  harness = await startChatHarness({
    store: createStore({ database: { kind: "postgres", url } }),
    devnet: { channelClaimIntervalSeconds: 0, heartbeatSeconds: 0, settleTimeoutMs: 10_000 },
  });
  // The second instance: the same configuration, its own store connection and clients.
  second = startSecondInstance(harness, url);
}, 120_000);

afterAll(async () => {
  await second?.store.close();
  await harness?.stop();
  await postgres?.stop();
});

describe.skipIf(skipPostgresTests)("one payment channel paid from two instances at once", () => {
  it(
    `${CALLS} concurrent calls under a budget of ${K} prices: exactly ${K} paid (the opening call and ${K - 1} of the 50), no voucher conflict; ledger = journal = the chain's claim`,
    { timeout: 180_000 },
    async () => {
      const { devnet } = harness;
      const service = devnet.services.find((candidate) => candidate.name === "tick-feed")!;
      const url = `${service.url}?${new URLSearchParams(service.queryParams)}`;
      const price = parseUnits(service.price, 6);
      const agent = localAccount(devnet.accounts.agent.privateKey as Hex);
      const chain = createPublicClient({ transport: http(devnet.rpcUrl), cacheTime: 0 });
      const payeeBefore = await harness.usdcBalance(service.payTo as `0x${string}`);
      // A voucher the service refuses (a conflict: its cumulative amount is not the service's
      // charge plus the price) comes back as a 402 to a paid request; the channel path would
      // resync and retry it, so the test counts them rather than trusting the outcomes alone.
      let refusedVouchers = 0;
      const counted = (deps: ReturnType<typeof purchaseDependenciesOf>) => ({
        ...deps,
        fetch: async (input: string, init?: RequestInit) => {
          const response = await deps.fetch(input, init);
          if (response.status === 402 && new Headers(init?.headers).has("payment-signature")) refusedVouchers += 1;
          return response;
        },
      });
      const instances = [counted(purchaseDependenciesOf(harness.deps)), counted(purchaseDependenciesOf(second))];

      const call = async (index: number): Promise<PurchaseOutcome> => {
        const writer = new StreamWriter({ framing: "plain", keepAliveMs: 0 });
        void writer.readable.pipeTo(new WritableStream()).catch(() => undefined);
        const tracker = new PaymentTracker(writer);
        const outcome = await runPurchase(instances[index % 2]!, {
          service: service.name,
          url,
          method: "GET",
          intent: `channel-concurrency-${index}`,
          payer: { kind: "agent", account: agent },
          // The caller's own budget is K prices; the wallet's cap is far above it.
          limits: {
            perPayment: 1_000_000n,
            perRequest: 1_000_000n,
            daily: price * BigInt(K),
            scope: { key: SCOPE, label: "the test caller's budget", walletDailyCap: 1_000_000_000n },
          },
          maxPayments: 1,
          tracker,
          deadline: Date.now() + 120_000,
        });
        // As the doors do before they answer: the ledger's settle, made after the answer, has finished.
        await tracker.recorded();
        return outcome;
      };
      // The first call opens the channel (its deposit, capped by the budget: K prices). The 50
      // then race over both instances for the K − 1 prices left, every one a voucher on the same
      // channel, so each instance's calls meet the other's at the database's lease.
      const blockBefore = await chain.getBlockNumber();
      const opening = await call(CALLS);
      expect(opening.status, "message" in opening ? opening.message : "").toBe("delivered");
      expect(await chain.getBlockNumber()).toBe(blockBefore + 1n);
      const outcomes = await Promise.all(Array.from({ length: CALLS }, (_, index) => call(index)));

      const delivered = outcomes.filter((outcome) => outcome.status === "delivered");
      const summary = outcomes.map((outcome) => `${outcome.status}${"message" in outcome ? `: ${outcome.message}` : ""}`);
      const tally = [...new Set(summary)].map((line) => `${summary.filter((other) => other === line).length}× ${line}`).join("\n");
      const others = outcomes.filter((outcome) => outcome.status !== "delivered");
      expect(delivered, tally).toHaveLength(K - 1);
      expect(refusedVouchers).toBe(0);
      // Every other call was refused by the caller's budget, none by the service (a conflict).
      for (const outcome of others) {
        expect(outcome.status).toBe("failed");
        expect(outcome.status === "failed" && outcome.reason).toBe("limit-exceeded");
        expect(outcome.status === "failed" && outcome.message).toContain("the test caller's budget");
      }
      // No transaction during the voucher calls: the deposit was the only one.
      expect(await chain.getBlockNumber()).toBe(blockBefore + 1n);

      // The ledger: the caller's budget holds exactly K prices, settled, nothing left reserved.
      const spent = await harness.deps.store.ledger.spentInScope(SCOPE);
      expect(spent).toEqual({ settled: price * BigInt(K), reserved: 0n });
      // The channel: the server's charged cumulative amount is ours.
      const [channel] = await harness.deps.store.channels!.ofPayer(agent.address, 10);
      expect(channel).toBeDefined();
      expect(channel!.charged).toBe(price * BigInt(K));
      expect(channel!.signedMax).toBe(price * BigInt(K));
      // The journal: K delivered vouchers of this channel.
      const rows = await harness.deps.store.journal.history({ payer: agent.address, status: "delivered", limit: 200 });
      const payee = getAddress(service.payTo!);
      const vouchers = rows.filter((row) => row.payTo !== undefined && getAddress(row.payTo) === payee);
      expect(vouchers).toHaveLength(K);

      // The service claims and settles: the chain and the payee show the same K prices.
      await devnet.channels.flush();
      const { abi } = loadContractArtifact("batchSettlement");
      const onChain = (await chain.readContract({
        address: getAddress(BATCH_SETTLEMENT_ADDRESS),
        abi,
        functionName: "channels",
        args: [channel!.channelId],
      })) as readonly [bigint, bigint];
      expect(onChain[1]).toBe(price * BigInt(K));
      expect((await harness.usdcBalance(service.payTo as `0x${string}`)) - payeeBefore).toBe(price * BigInt(K));
    },
  );
});
