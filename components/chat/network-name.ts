import { NETWORK_LABELS, type PublicNetworkConfig } from "@/lib/client/public-network-config";

/** A network as people know it: "Base Sepolia" rather than "eip155:84532". */
export function networkName(value: string | undefined, network: PublicNetworkConfig): string {
  if (!value) return network.label;
  if (value === network.caip2 || value === network.network || value === String(network.chainId)) {
    return network.label;
  }
  const known = Object.entries(NETWORK_LABELS).find(([name]) => name === value);
  return known ? known[1] : value;
}
