/**
 * The network facts the browser needs, as served by `GET /api/network`: which chain payments
 * run on and what it is called, the token contract, where explorers live, and (only for the
 * local world) the anvil RPC URL and the demo user's address. Nothing secret ever travels here.
 */
import { z } from "zod";

const HexAddress = z
  .string()
  .regex(/^0x[0-9a-fA-F]{40}$/)
  .transform((value) => value as `0x${string}`);

export const PublicNetworkConfig = z.object({
  /** `custom`: any EVM chain the operator described (X402_NETWORK=custom). */
  network: z.enum(["local", "base-sepolia", "base", "custom"]),
  /** What people read for the network: "Base Sepolia", or the operator's NETWORK_LABEL. */
  label: z.string().min(1).max(64),
  chainId: z.number().int().positive(),
  caip2: z.string(),
  usdc: HexAddress,
  explorerUrl: z.url({ protocol: /^https?$/ }).nullable(),
  rpcUrl: z.url({ protocol: /^https?$/ }).optional(),
  demoUser: z.object({ address: HexAddress }).optional(),
});
export type PublicNetworkConfig = z.infer<typeof PublicNetworkConfig>;

/**
 * What people read for the networks with built-in names, for a network a service names by one
 * of them. The deployment's own network is `label` (a custom chain has only that).
 */
export const NETWORK_LABELS: Record<Exclude<PublicNetworkConfig["network"], "custom">, string> = {
  local: "Local devnet",
  "base-sepolia": "Base Sepolia",
  base: "Base",
};

/** Fetches and validates the public network config; throws a readable Error on failure. */
export async function fetchPublicNetworkConfig(signal?: AbortSignal): Promise<PublicNetworkConfig> {
  const response = await fetch("/api/network", { headers: { Accept: "application/json" }, signal, cache: "no-store" });
  if (!response.ok) {
    throw new Error(`The network configuration is unavailable (HTTP ${response.status}).`);
  }
  const result = PublicNetworkConfig.safeParse(await response.json());
  if (!result.success) throw new Error("The network configuration from the server is not in the expected shape.");
  return result.data;
}
