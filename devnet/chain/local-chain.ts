import { createPublicClient, createTestClient, defineChain, http, type Chain, type PublicClient, type TestClient, type Transport } from "viem";

/**
 * How often viem polls the local node for receipts and blocks. viem's default (4 s) suits public
 * chains; against anvil on loopback it would add seconds to every settlement.
 */
export const LOCAL_POLLING_INTERVAL_MS = 50;

export function localChain(chainId: number, rpcUrl: string): Chain {
  return defineChain({
    id: chainId,
    name: "x402 devnet (anvil)",
    nativeCurrency: { name: "Ether", symbol: "ETH", decimals: 18 },
    rpcUrls: { default: { http: [rpcUrl] } },
    testnet: true,
  });
}

export function localPublicClient(chain: Chain): PublicClient<Transport, Chain> {
  return createPublicClient({ chain, transport: http(), pollingInterval: LOCAL_POLLING_INTERVAL_MS });
}

/** viem's anvil-specific actions (mining control, minting ETH) for the devnet's own setup. */
export function localTestClient(chain: Chain): TestClient<"anvil", Transport, Chain> {
  return createTestClient({ chain, mode: "anvil", transport: http(), pollingInterval: LOCAL_POLLING_INTERVAL_MS });
}

/**
 * Switches anvil to interval mining: a block every n seconds whether or not transactions are
 * waiting, and none in between, which is what makes "waiting for confirmations" visible in the
 * app. (Instant mining, with or without a heartbeat, is chosen when anvil starts: start-anvil.ts.)
 */
export async function setIntervalMining(client: TestClient<"anvil">, blockTimeSeconds: number): Promise<void> {
  await client.setAutomine(false);
  await client.setIntervalMining({ interval: blockTimeSeconds });
}

/** Mines `count` empty blocks at once (instant mode has no other way to gain confirmations). */
export async function mineBlocks(client: TestClient<"anvil">, count: number): Promise<void> {
  if (count > 0) await client.mine({ blocks: count });
}
