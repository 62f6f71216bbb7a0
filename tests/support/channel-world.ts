/**
 * The local world for the channel payment tests: a chat harness on a database store (PGlite)
 * whose channel ledger is the agent's, with no heartbeat and no timed claim rounds (every block
 * is a transaction the test caused), and a chain client that reads fresh state.
 */
import { createPublicClient, http } from "viem";
import { purchaseDependenciesOf } from "../../lib/agent/agent-dependencies";
import { PaymentTracker } from "../../lib/agent/purchase/payment-tracker";
import { runPurchase, type PurchaseOutcome } from "../../lib/agent/purchase/run-purchase";
import { StreamWriter } from "../../lib/stream";
import type { Devnet } from "../../devnet";
import type { ChannelLedger } from "../../lib/channels/channel-ledger";
import { createDatabaseStore, lazyDatabase } from "../../lib/store/create-database-store";
import type { Store } from "../../lib/store/store-types";
import { startChatHarness, type ChatHarness } from "./chat-harness";

export type ChannelWorld = {
  harness: ChatHarness;
  devnet: Devnet;
  store: Store;
  channels: ChannelLedger;
  chain: ReturnType<typeof createPublicClient>;
};

/** Starts the world with `env` for the app (e.g. CHANNEL_DEPOSIT_CALLS); stop it with `harness.stop()`. */
export async function startChannelWorld(env: Record<string, string>): Promise<ChannelWorld> {
  const store = createDatabaseStore(lazyDatabase({ kind: "pglite" }));
  if (!store.channels) throw new Error("the database store has no channel ledger");
  const harness = await startChatHarness({
    store,
    env,
    devnet: { channelClaimIntervalSeconds: 0, heartbeatSeconds: 0, settleTimeoutMs: 10_000 },
  });
  const chain = createPublicClient({ transport: http(harness.devnet.rpcUrl), pollingInterval: 50, cacheTime: 0 });
  return { harness, devnet: harness.devnet, store, channels: store.channels, chain };
}

/** The harness's agent wallet. */
export function agentOf(harness: ChatHarness) {
  const account = harness.deps.agentAccount;
  if (!account) throw new Error("the harness has no agent wallet");
  return account;
}

/** One purchase of a local-world service by the agent wallet, wired as the chat route wires it, its journal written before it returns. */
export async function buyAsAgent(
  harness: ChatHarness,
  call: { service: string; intent: string; requestKey: string; conversationId: string },
): Promise<PurchaseOutcome> {
  const service = harness.devnet.services.find((candidate) => candidate.name === call.service);
  if (!service) throw new Error(`the local world has no ${call.service}`);
  const writer = new StreamWriter({ framing: "plain", keepAliveMs: 0 });
  void writer.readable.pipeTo(new WritableStream()).catch(() => undefined);
  const tracker = new PaymentTracker(writer, {
    journal: harness.deps.store.journal,
    requestKey: call.requestKey,
    conversationId: call.conversationId,
    now: Date.now,
  });
  const outcome = await runPurchase(purchaseDependenciesOf(harness.deps), {
    service: service.name,
    url: service.example?.url ?? service.url,
    method: "GET",
    intent: call.intent,
    payer: { kind: "agent", account: agentOf(harness) },
    limits: { perPayment: 1_000_000n, perRequest: 1_000_000n, daily: 10_000_000n },
    maxPayments: 3,
    tracker,
    deadline: Date.now() + 30_000,
  });
  await tracker.recorded();
  return outcome;
}
