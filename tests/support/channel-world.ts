/**
 * The local world for the channel payment tests: a chat harness on a database store (PGlite)
 * whose channel ledger is the agent's, with no heartbeat and no timed claim rounds (every block
 * is a transaction the test caused), and a chain client that reads fresh state.
 */
import { createPublicClient, http } from "viem";
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
