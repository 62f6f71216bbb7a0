/**
 * A world built from the official x402 packages only, on 127.0.0.1 and free ports:
 * - the chain: anvil with Circle's USDC (FiatTokenV2_2 behind its proxy), deployed and minted
 *   by the local world's own chain pieces (devnet/chain, devnet/token), on a chain id that is
 *   not the local world's, so nothing can lean on the local preset;
 * - a facilitator of `@x402/core` + `@x402/evm` + the bazaar extension, whose discovery list
 *   fills only from payments (official-facilitator.ts);
 * - three services behind `@x402/express`'s payment middleware (official-services.ts).
 * None of our facilitator or service code runs here. The app is pointed at it by configuration
 * (tests/integration/official-world.test.ts).
 */
import { getAddress, type Address } from "viem";
import { ANVIL_MNEMONIC, DEV_ACCOUNT_COUNT, devAccounts, type DevAccount } from "../../devnet/chain/dev-accounts";
import { installMulticall3 } from "../../devnet/chain/install-multicall3";
import { localChain, localPublicClient, localTestClient } from "../../devnet/chain/local-chain";
import { startAnvil } from "../../devnet/chain/start-anvil";
import { DEFAULT_HEARTBEAT_SECONDS } from "../../devnet/devnet-options";
import { deployUsdc } from "../../devnet/token/deploy-usdc";
import { startOfficialFacilitator, type OfficialFacilitator } from "./official-facilitator";
import { startOfficialServices, type OfficialServices, type OfficialToken } from "./official-services";

/** Not 31337 (the local world's): the app must take the chain from its configuration. */
export const OFFICIAL_WORLD_CHAIN_ID = 402_402;
/** USDC minted to each paying account (100 USDC). */
const WALLET_USDC = 100_000_000n;

export type OfficialWorld = {
  chainId: number;
  network: `eip155:${number}`;
  rpcUrl: string;
  token: OfficialToken;
  facilitator: OfficialFacilitator;
  services: OfficialServices;
  accounts: {
    /** The app's agent wallet (AGENT_PRIVATE_KEY). */
    agent: DevAccount;
    /** Pays with the official client. */
    payer: DevAccount;
    /** Receives every service's payments. */
    merchant: Address;
  };
  /** Stops the services, the facilitator, then the chain. Idempotent. */
  stop(): Promise<void>;
};

export async function startOfficialWorld(): Promise<OfficialWorld> {
  const stack: (() => Promise<void>)[] = [];
  const stopAll = async () => {
    for (const stop of stack.reverse().splice(0)) await stop().catch(() => undefined);
  };
  try {
    const accounts = devAccounts(ANVIL_MNEMONIC);
    const anvil = await startAnvil({
      chainId: OFFICIAL_WORLD_CHAIN_ID,
      mnemonic: ANVIL_MNEMONIC,
      accountCount: DEV_ACCOUNT_COUNT,
      balanceEther: 1_000,
      // A block every few seconds besides one per transaction: the latest block's time keeps up
      // with the clock, or the facilitator's simulation sees a fresh authorization as not yet valid.
      heartbeatSeconds: DEFAULT_HEARTBEAT_SECONDS,
    });
    stack.push(anvil.stop);
    const chain = localChain(OFFICIAL_WORLD_CHAIN_ID, anvil.rpcUrl);
    const publicClient = localPublicClient(chain);
    const [usdc] = await Promise.all([
      deployUsdc({
        chain,
        publicClient,
        deployer: accounts.deployer,
        proxyAdmin: accounts.proxyAdmin,
        mints: [
          { to: accounts.agent.address, amount: WALLET_USDC },
          { to: accounts.user.address, amount: WALLET_USDC },
        ],
      }),
      // The exact facilitator batches its failure diagnosis through Multicall3, as on Base.
      installMulticall3(publicClient, localTestClient(chain)),
    ]);
    const network = `eip155:${OFFICIAL_WORLD_CHAIN_ID}` as const;
    const token: OfficialToken = { address: getAddress(usdc.address), name: usdc.name, version: usdc.version, decimals: usdc.decimals };

    const facilitator = await startOfficialFacilitator({ chain, network, privateKey: accounts.facilitator.privateKey });
    stack.push(facilitator.stop);
    const services = await startOfficialServices({ network, token, payTo: accounts.merchant.address, facilitatorUrl: facilitator.url });
    stack.push(services.stop);

    let stopping: Promise<void> | undefined;
    return {
      chainId: OFFICIAL_WORLD_CHAIN_ID,
      network,
      rpcUrl: anvil.rpcUrl,
      token,
      facilitator,
      services,
      accounts: { agent: accounts.agent, payer: accounts.user, merchant: accounts.merchant.address },
      stop: () => (stopping ??= stopAll()),
    };
  } catch (error) {
    await stopAll();
    throw error;
  }
}
