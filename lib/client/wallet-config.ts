/**
 * The browser's wagmi setup, built from `GET /api/network`: one chain (the one payments run on),
 * the injected connector for browser wallets and, in the local world only, the "Local demo
 * wallet". The demo wallet is wagmi's mock connector for the devnet's demo user: it forwards
 * `eth_signTypedData_v4` to the local anvil node, whose dev accounts are unlocked, so the node
 * signs and no private key ever reaches the browser.
 */
import { defineChain, type Chain } from "viem";
import { base, baseSepolia } from "viem/chains";
import { createConfig, http, type Config, type CreateConnectorFn } from "wagmi";
import { injected, mock } from "wagmi/connectors";
import type { PublicNetworkConfig } from "./public-network-config";


/** The chain of the deployment, as viem and wagmi describe chains. */
export function chainFor(network: PublicNetworkConfig): Chain {
  if (network.network === "local") {
    if (!network.rpcUrl) throw new Error("The local network config has no RPC URL.");
    return defineChain({
      id: network.chainId,
      name: "Local devnet (anvil)",
      nativeCurrency: { name: "Ether", symbol: "ETH", decimals: 18 },
      rpcUrls: { default: { http: [network.rpcUrl] } },
      testnet: true,
    });
  }
  const preset = network.network === "base" ? base : baseSepolia;
  if (preset.id !== network.chainId) throw new Error(`Chain id ${network.chainId} does not match ${preset.name}.`);
  return network.rpcUrl ? { ...preset, rpcUrls: { default: { http: [network.rpcUrl] } } } : preset;
}

export function createWalletConfig(network: PublicNetworkConfig): Config {
  const chain = chainFor(network);
  const connectors: CreateConnectorFn[] = [injected()];
  if (network.network === "local" && network.demoUser) {
    connectors.push(mock({ accounts: [network.demoUser.address] }));
  }
  return createConfig({
    chains: [chain],
    connectors,
    transports: { [chain.id]: http(network.rpcUrl) },
    ssr: true,
  });
}
