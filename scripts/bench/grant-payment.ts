/**
 * `npm run bench:grant`: one payment under a grant next to one agent-wallet payment on the
 * local world, both `exact` to the same service, through the purchase core wired as the chat
 * route wires it (guarded fetch, chain reader, memory store). Under a grant the relayer first
 * pulls the price from the user's wallet (Permit2.transferFrom), then the payer account signs;
 * so it costs one transaction more. Interleaved pair by pair, the order alternating; for each
 * side the wall time of `runPurchase` (402 to proven delivery), its transactions and their gas,
 * as median, min and max of the runs.
 *
 *   npm run bench:grant -- --runs 9 --warmup 1
 */
import { createPublicClient, http, type Hex } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { PaymentTracker } from "../../lib/agent/purchase/payment-tracker";
import { purchaseDependenciesOf } from "../../lib/agent/agent-dependencies";
import { runPurchase, type Payer } from "../../lib/agent/purchase/run-purchase";
import { grantsDependenciesOf } from "../../lib/app/grants-dependencies";
import { localAccount } from "../../lib/crypto/secp256k1";
import { handleCreateGrant, handlePrepareGrant } from "../../lib/grants/handle-grants-request";
import { StreamWriter } from "../../lib/stream";
import { startChatHarness } from "../../tests/support/chat-harness";
import { spread, wholeNumberFlag } from "./small-bench";
import { ms } from "./stats";

type Sample = { ms: number; transactions: number; gas: bigint };

async function main(): Promise<void> {
  const runs = Math.max(5, wholeNumberFlag("runs", 9));
  const warmup = wholeNumberFlag("warmup", 1);
  const harness = await startChatHarness({ devnet: { settleTimeoutMs: 10_000 } });
  try {
    const { devnet, deps } = harness;
    const chain = createPublicClient({ transport: http(devnet.rpcUrl), cacheTime: 0 });
    const weather = devnet.services.find((service) => service.name === "weather");
    if (!weather) throw new Error("the local world has no weather service");
    const url = `${weather.url}?${new URLSearchParams(weather.queryParams)}`;

    // One grant for every grant-side run: the demo user signs it once.
    const user = privateKeyToAccount(devnet.accounts.user.privateKey as Hex);
    const grantsDeps = grantsDependenciesOf(deps);
    const post = (path: string, body: unknown) =>
      new Request(`http://127.0.0.1${path}`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
    const prepared = await handlePrepareGrant(post("/api/grants/prepare", { walletAddress: user.address, amount: "5" }), () => grantsDeps);
    const { typedData } = (await prepared.json()) as { typedData: Record<string, unknown> };
    const created = await handleCreateGrant(post("/api/grants", { typedData, signature: await user.signTypedData(typedData as never) }), () => grantsDeps);
    if (created.status !== 201) throw new Error(`the grant was refused: ${await created.text()}`);
    const { grant } = (await created.json()) as { grant: { id: string } };
    const record = await deps.store.grants.get(grant.id);
    const granted = deps.grantPayer!(record!);
    let pull: Hex | undefined;
    const funding = {
      ...granted.funding,
      async fund(amount: bigint) {
        const moved = await granted.funding.fund(amount);
        pull = moved.ok ? moved.transaction : undefined;
        return moved;
      },
    };

    const sides: { name: string; payer: Payer }[] = [
      { name: "agent wallet", payer: { kind: "agent", account: localAccount(devnet.accounts.agent.privateKey as Hex) } },
      { name: "under a grant", payer: { kind: "agent", account: granted.account, funding } },
    ];
    // As the chat route wires the purchase (both sides alike).
    const purchaseDeps = purchaseDependenciesOf(deps);
    let sequence = 0;
    const buy = async (side: (typeof sides)[number]): Promise<Sample> => {
      const writer = new StreamWriter({ framing: "plain", keepAliveMs: 0 });
      void writer.readable.pipeTo(new WritableStream()).catch(() => undefined);
      sequence += 1;
      pull = undefined;
      const started = performance.now();
      const outcome = await runPurchase(purchaseDeps, {
        service: weather.name,
        url,
        method: "GET",
        intent: `bench-grant-${process.pid}-${sequence}`,
        payer: side.payer,
        limits: { perPayment: 1_000_000n, perRequest: 2_000_000n, daily: 1_000_000_000_000n },
        maxPayments: 3,
        tracker: new PaymentTracker(writer),
        deadline: Date.now() + 45_000,
      });
      const elapsed = performance.now() - started;
      if (outcome.status !== "delivered") throw new Error(`${side.name}: ${outcome.status} ${"message" in outcome ? outcome.message : ""}`);
      const hashes = [outcome.txHash as Hex, ...(pull ? [pull] : [])];
      const receipts = await Promise.all(hashes.map((hash) => chain.getTransactionReceipt({ hash })));
      return { ms: elapsed, transactions: receipts.length, gas: receipts.reduce((sum, receipt) => sum + receipt.gasUsed, 0n) };
    };

    for (let index = 0; index < warmup; index += 1) for (const side of sides) await buy(side);
    const samples = new Map<string, Sample[]>(sides.map((side) => [side.name, []]));
    for (let index = 0; index < runs; index += 1) {
      const order = index % 2 === 0 ? sides : [...sides].reverse();
      for (const side of order) samples.get(side.name)!.push(await buy(side));
    }

    console.log(`One exact payment of ${weather.price} USDC through runPurchase on the local world, ${runs} runs each (after ${warmup} warm-up), interleaved:`);
    console.log("| payer | time (402 to proven delivery) | transactions | gas (all its transactions) |");
    console.log("|---|---|---|---|");
    for (const side of sides) {
      const list = samples.get(side.name)!;
      const transactions = [...new Set(list.map((sample) => sample.transactions))].join(", ");
      console.log(
        `| ${side.name} | ${spread(
          list.map((sample) => sample.ms),
          ms,
        )} | ${transactions} | ${spread(
          list.map((sample) => Number(sample.gas)),
          (value) => String(Math.round(value)),
        )} |`,
      );
    }
  } finally {
    await harness.stop();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
