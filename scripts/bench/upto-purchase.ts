/**
 * `npm run bench:upto`: one metered (`upto`, Permit2) purchase next to one exact (EIP-3009)
 * purchase on the local world, through the agent's own purchase path wired as the chat route
 * wires it (guarded fetch, chain reader, memory store). Interleaved pair by pair, the order
 * alternating; for each side the wall time of `runPurchase` (402 to proven delivery) and the
 * gas of its settlement transaction, as median, min and max of the runs.
 *
 *   npm run bench:upto -- --runs 9 --warmup 1
 */
import { createPublicClient, http, type Hex } from "viem";
import { PaymentTracker } from "../../lib/agent/purchase/payment-tracker";
import { runPurchase, type PurchaseDependencies } from "../../lib/agent/purchase/run-purchase";
import { localAccount } from "../../lib/crypto/secp256k1";
import { StreamWriter } from "../../lib/stream";
import { startChatHarness } from "../../tests/support/chat-harness";
import { spread, wholeNumberFlag } from "./small-bench";
import { ms } from "./stats";

type Side = { name: string; service: string; url: string; scheme: "exact" | "upto" };
type Sample = { ms: number; gas: bigint; amount: string };

async function main(): Promise<void> {
  const runs = Math.max(5, wholeNumberFlag("runs", 9));
  const warmup = wholeNumberFlag("warmup", 1);
  const harness = await startChatHarness({ devnet: { settleTimeoutMs: 10_000 }, env: { LIMIT_DEFAULT_DAILY: "100000", LIMIT_MAX_DAILY: "100000" } });
  try {
    const { devnet, deps } = harness;
    const chain = createPublicClient({ transport: http(devnet.rpcUrl) });
    const find = (name: string) => {
      const found = devnet.services.find((service) => service.name === name);
      if (!found) throw new Error(`the local world has no ${name} service`);
      return found;
    };
    const weather = find("weather");
    const rows = find("row-meter");
    const sides: Side[] = [
      { name: "exact (EIP-3009)", service: weather.name, url: `${weather.url}?${new URLSearchParams(weather.queryParams)}`, scheme: "exact" },
      { name: "upto (Permit2)", service: rows.name, url: `${rows.url}?rows=10`, scheme: "upto" },
    ];
    const purchaseDeps: PurchaseDependencies = {
      network: deps.network,
      fetch: deps.fetch,
      chain: deps.chain,
      ledger: deps.store.ledger,
      quoteSecret: deps.quoteSecret,
      now: deps.now,
      agentAuthorizationTtlSeconds: deps.settings.agentAuthorizationTtlSeconds,
    };
    const agent = localAccount(devnet.accounts.agent.privateKey as Hex);
    let sequence = 0;
    const buy = async (side: Side): Promise<Sample> => {
      const writer = new StreamWriter({ framing: "plain", keepAliveMs: 0 });
      void writer.readable.pipeTo(new WritableStream()).catch(() => undefined);
      sequence += 1;
      const started = performance.now();
      const outcome = await runPurchase(purchaseDeps, {
        service: side.service,
        url: side.url,
        method: "GET",
        intent: `bench-upto-${process.pid}-${sequence}`,
        payer: { kind: "agent", account: agent },
        limits: { perPayment: 1_000_000n, perRequest: 2_000_000n, daily: 1_000_000_000_000n },
        maxPayments: 3,
        tracker: new PaymentTracker(writer),
        deadline: Date.now() + 45_000,
      });
      const elapsed = performance.now() - started;
      if (outcome.status !== "delivered") throw new Error(`${side.name}: ${outcome.status} ${"message" in outcome ? outcome.message : ""}`);
      const receipt = await chain.getTransactionReceipt({ hash: outcome.txHash as Hex });
      return { ms: elapsed, gas: receipt.gasUsed, amount: outcome.amount };
    };

    for (let index = 0; index < warmup; index += 1) for (const side of sides) await buy(side);
    const samples = new Map<string, Sample[]>(sides.map((side) => [side.name, []]));
    for (let index = 0; index < runs; index += 1) {
      const order = index % 2 === 0 ? sides : [...sides].reverse();
      for (const side of order) samples.get(side.name)!.push(await buy(side));
    }

    console.log(`One purchase through runPurchase on the local world, ${runs} runs each (after ${warmup} warm-up), interleaved:`);
    console.log("| scheme | service | settled | time (402 to proven delivery) | settlement gas |");
    console.log("|---|---|---|---|---|");
    for (const side of sides) {
      const list = samples.get(side.name)!;
      const amounts = [...new Set(list.map((sample) => sample.amount))].join(", ");
      const gas = list.map((sample) => Number(sample.gas));
      console.log(
        `| ${side.name} | ${side.service} | ${amounts} USDC | ${spread(
          list.map((sample) => sample.ms),
          ms,
        )} | ${spread(gas, (value) => String(Math.round(value)))} |`,
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
