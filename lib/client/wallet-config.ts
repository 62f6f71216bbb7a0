/**
 * The browser's wagmi setup, built from `GET /api/network`: one chain (the one payments run on),
 * the injected connector for browser wallets and, in the local world only, the "Local demo
 * wallet". The demo wallet is wagmi's mock connector for the devnet's demo user: it forwards
 * `eth_signTypedData_v4` to the local anvil node, whose dev accounts are unlocked, so the node
 * signs and no private key ever reaches the browser.
 *
 * A custom chain (X402_NETWORK=custom) comes without an RPC URL (the operator's may carry a
 * key): the page reads it through the connected browser wallet, which refuses while it is on
 * another chain, so nothing is ever read from the wrong one.
 */
import { defineChain, type Chain } from "viem";
import { base, baseSepolia } from "viem/chains";
import { createConfig, http, unstable_connector, type Config, type CreateConnectorFn, type Transport } from "wagmi";
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
  if (network.network === "custom") {
    return defineChain({
      id: network.chainId,
      name: network.label,
      // An assumption for display only: the page never reads or sends the native currency.
      nativeCurrency: { name: "Ether", symbol: "ETH", decimals: 18 },
      // None: reads go through the browser wallet (see `transportFor`), which knows its own.
      rpcUrls: { default: { http: network.rpcUrl ? [network.rpcUrl] : [] } },
      ...(network.explorerUrl ? { blockExplorers: { default: { name: "Explorer", url: network.explorerUrl } } } : {}),
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
    transports: { [chain.id]: transportFor(network) },
    ssr: true,
  });
}

/** Where the page reads the chain: the served RPC, the preset's public one, or the wallet. */
function transportFor(network: PublicNetworkConfig): Transport {
  if (network.network === "custom" && !network.rpcUrl) return unstable_connector(injected);
  return http(network.rpcUrl);
}
