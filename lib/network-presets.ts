/**
 * The networks this deployment can pay on. Base addresses are Circle's official USDC
 * deployments; the EIP-712 domain name/version are what those contracts sign with. The local
 * chain's token address comes from the devnet's coordinates file at run time, and a `custom`
 * network is described entirely by the environment (CHAIN_ID, ASSET_ADDRESS, …).
 */
export type NetworkName = PresetName | "custom";

/** The networks with built-in values. */
export type PresetName = "local" | "base-sepolia" | "base";

export type NetworkPreset = {
  name: PresetName;
  /** What people read. */
  label: string;
  chainId: number;
  /** CAIP-2 id, as x402 v2 names networks. */
  caip2: `eip155:${number}`;
  /** USDC contract; undefined for the local chain (taken from the devnet file). */
  usdc: `0x${string}` | undefined;
  usdcName: string;
  usdcVersion: string;
  /** Block explorer base, or undefined where there is none (local). */
  explorerUrl: string | undefined;
  defaultRpcUrl: string | undefined;
  defaultFacilitatorUrl: string | undefined;
};

export const NETWORK_PRESETS: Record<PresetName, NetworkPreset> = {
  local: {
    name: "local",
    label: "Local devnet",
    chainId: 31337,
    caip2: "eip155:31337",
    usdc: undefined,
    usdcName: "USD Coin",
    usdcVersion: "2",
    explorerUrl: undefined,
    defaultRpcUrl: undefined,
    defaultFacilitatorUrl: undefined,
  },
  "base-sepolia": {
    name: "base-sepolia",
    label: "Base Sepolia",
    chainId: 84532,
    caip2: "eip155:84532",
    usdc: "0x036CbD53842c5426634e7929541eC2318f3dCF7e",
    usdcName: "USDC",
    usdcVersion: "2",
    explorerUrl: "https://sepolia.basescan.org",
    defaultRpcUrl: "https://sepolia.base.org",
    defaultFacilitatorUrl: "https://x402.org/facilitator",
  },
  base: {
    name: "base",
    label: "Base",
    chainId: 8453,
    caip2: "eip155:8453",
    usdc: "0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913",
    usdcName: "USD Coin",
    usdcVersion: "2",
    explorerUrl: "https://basescan.org",
    defaultRpcUrl: "https://mainnet.base.org",
    defaultFacilitatorUrl: undefined,
  },
};

/** The explorer link of a transaction, or undefined on a chain without an explorer. */
export function explorerTransactionUrl(preset: Pick<NetworkPreset, "explorerUrl">, txHash: string): string | undefined {
  return preset.explorerUrl ? `${preset.explorerUrl}/tx/${txHash}` : undefined;
}
