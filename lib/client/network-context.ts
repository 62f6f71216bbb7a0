import { createContext, useContext } from "react";
import type { PublicNetworkConfig } from "./public-network-config";

export const NetworkContext = createContext<PublicNetworkConfig | null>(null);

/** The deployment's public network config; only inside the providers, once it has loaded. */
export function useNetwork(): PublicNetworkConfig {
  const network = useContext(NetworkContext);
  if (!network) throw new Error("useNetwork must be used inside <Providers> after the network config has loaded.");
  return network;
}
