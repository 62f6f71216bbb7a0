import "server-only";
/**
 * The network this deployment pays on, resolved from the environment: a Base preset, the
 * local world whose coordinates `npm run devnet` writes to DEVNET_FILE, or any EVM chain
 * described by the environment (`custom`). On every one of them the operator's ASSET_*,
 * EXPLORER_URL and NETWORK_LABEL win over the built-in values, and on the local world so do
 * RPC_URL and FACILITATOR_URL over the file's.
 */
import path from "node:path";
import { ConfigError, type Env } from "../env";
import { AppError } from "../errors";
import { readDevnetCoordinates, type DevnetCoordinates } from "./devnet-coordinates";
import { NETWORK_PRESETS, type NetworkName, type PresetName } from "../network-presets";

export type NetworkConfig = {
  name: NetworkName;
  /** What people (and the model) read: "Base Sepolia", "Local devnet", "Chain 10". */
  label: string;
  chainId: number;
  caip2: `eip155:${number}`;
  /** Every name a payment requirement may use for this chain (CAIP-2 and v1 names). */
  networkNames: string[];
  usdc: `0x${string}`;
  usdcName: string;
  usdcVersion: string;
  rpcUrl: string;
  facilitatorUrl: string;
  explorerUrl: string | undefined;
  /** The agent wallet's key, when autonomous payments are enabled. */
  agentPrivateKey: `0x${string}` | undefined;
  /**
   * Hosts a service may be at although they are not public (the local world's services,
   * OUTBOUND_ALLOWLIST). Never the chain's RPC or the facilitator: see `infrastructureUrls`.
   */
  outboundAllowlist: string[];
  devnet: DevnetCoordinates | undefined;
};

/** The settings that may replace a network's built-in values. */
type NetworkOverrides = Partial<
  Pick<Env, "RPC_URL" | "FACILITATOR_URL" | "CHAIN_ID" | "ASSET_ADDRESS" | "ASSET_NAME" | "ASSET_VERSION" | "EXPLORER_URL" | "NETWORK_LABEL">
>;

/**
 * Builds the network configuration for the local world from its coordinates; RPC_URL and
 * FACILITATOR_URL, when set, replace the file's (the local chain with someone else's
 * facilitator, or another node of it).
 */
export function networkConfigFromDevnet(
  devnet: DevnetCoordinates,
  env: Pick<Env, "AGENT_PRIVATE_KEY" | "OUTBOUND_ALLOWLIST"> & NetworkOverrides,
): NetworkConfig {
  const preset = NETWORK_PRESETS.local;
  if (env.CHAIN_ID !== undefined && env.CHAIN_ID !== devnet.chainId) {
    throw new ConfigError([{ variable: "CHAIN_ID", message: `must be ${devnet.chainId} (the local world's, from its coordinates file) or unset` }]);
  }
  // The services only: the chain's RPC and the facilitator share 127.0.0.1 with them, and listed
  // here they were callable as services (a POST to the RPC moved the agent's USDC). The file's
  // RPC and facilitator stay the network's own servers when overridden (`infrastructureUrls`).
  const hosts = [...new Set([...devnet.services, ...(devnet.mcpTools ?? [])].map((service) => new URL(service.url).host))];
  return {
    name: "local",
    label: env.NETWORK_LABEL ?? preset.label,
    chainId: devnet.chainId,
    caip2: `eip155:${devnet.chainId}`,
    networkNames: [`eip155:${devnet.chainId}`, ...(devnet.v1Network ? [devnet.v1Network] : [])],
    usdc: env.ASSET_ADDRESS ?? (devnet.usdc as `0x${string}`),
    usdcName: env.ASSET_NAME ?? devnet.usdcName ?? preset.usdcName,
    usdcVersion: env.ASSET_VERSION ?? devnet.usdcVersion ?? preset.usdcVersion,
    rpcUrl: env.RPC_URL ?? devnet.rpcUrl,
    facilitatorUrl: env.FACILITATOR_URL ?? devnet.facilitatorUrl,
    explorerUrl: env.EXPLORER_URL,
    agentPrivateKey: env.AGENT_PRIVATE_KEY ?? (devnet.accounts.agent.privateKey as `0x${string}`),
    outboundAllowlist: [...hosts, ...splitList(env.OUTBOUND_ALLOWLIST)],
    devnet,
  };
}

/**
 * The payment network's own servers: the chain's RPC and the facilitator, and on the local world
 * the devnet's own too where RPC_URL or FACILITATOR_URL (or a test) point elsewhere. The agent pays through them and
 * never calls them as services, on any network (lib/net/infrastructure.ts). Derived from the
 * configuration rather than kept beside it, so that it cannot fall out of step with it.
 */
export function infrastructureUrls(network: Pick<NetworkConfig, "rpcUrl" | "facilitatorUrl" | "devnet">): string[] {
  const devnet = network.devnet ? [network.devnet.rpcUrl, network.devnet.facilitatorUrl] : [];
  return [...new Set([network.rpcUrl, network.facilitatorUrl, ...devnet])];
}

/** Resolves the configuration from the environment; 503 when the local world is not running. */
export function networkConfigFromEnv(env: Env): NetworkConfig {
  if (env.X402_NETWORK === "local") {
    const file = path.resolve(env.DEVNET_FILE);
    let devnet: DevnetCoordinates;
    try {
      devnet = readDevnetCoordinates(file);
    } catch (cause) {
      throw new AppError("unavailable:not_configured", {
        message: "The local payment network is not running. Start it with `npm run dev` (or `npm run devnet`).",
        details: `could not read ${file}`,
        cause,
      });
    }
    return networkConfigFromDevnet(devnet, env);
  }
  if (env.X402_NETWORK === "custom") return customNetworkConfig(env);
  return presetNetworkConfig(env.X402_NETWORK, env);
}

/** A Base preset, with whatever the operator overrides. */
function presetNetworkConfig(name: Exclude<PresetName, "local">, env: Env): NetworkConfig {
  const preset = NETWORK_PRESETS[name];
  const rpcUrl = env.RPC_URL ?? preset.defaultRpcUrl;
  const facilitatorUrl = env.FACILITATOR_URL ?? preset.defaultFacilitatorUrl;
  const usdc = env.ASSET_ADDRESS ?? preset.usdc;
  if (!rpcUrl || !facilitatorUrl || !usdc) {
    throw new AppError("unavailable:not_configured", { details: `network ${preset.name} lacks RPC or facilitator URL` });
  }
  // parseEnv refuses another id already; checked again for configurations built by hand.
  if (env.CHAIN_ID !== undefined && env.CHAIN_ID !== preset.chainId) {
    throw new ConfigError([{ variable: "CHAIN_ID", message: `must be ${preset.chainId} (${preset.label}) or unset when X402_NETWORK is ${name}` }]);
  }
  return {
    name: preset.name,
    label: env.NETWORK_LABEL ?? preset.label,
    chainId: preset.chainId,
    caip2: preset.caip2,
    networkNames: [preset.caip2, preset.name],
    usdc,
    usdcName: env.ASSET_NAME ?? preset.usdcName,
    usdcVersion: env.ASSET_VERSION ?? preset.usdcVersion,
    rpcUrl,
    facilitatorUrl,
    explorerUrl: env.EXPLORER_URL ?? preset.explorerUrl,
    agentPrivateKey: env.AGENT_PRIVATE_KEY,
    outboundAllowlist: splitList(env.OUTBOUND_ALLOWLIST),
    devnet: undefined,
  };
}

/**
 * Any EVM chain, entirely from the environment. It has no x402 v1 name (v1 names are a fixed
 * table of public chains), so only its CAIP-2 id is accepted in payment requirements.
 */
function customNetworkConfig(env: Env): NetworkConfig {
  const { CHAIN_ID, RPC_URL, FACILITATOR_URL, ASSET_ADDRESS, ASSET_NAME, ASSET_VERSION } = env;
  // parseEnv requires all of them for `custom`; checked again for configurations built by hand.
  if (CHAIN_ID === undefined || !RPC_URL || !FACILITATOR_URL || !ASSET_ADDRESS || !ASSET_NAME || !ASSET_VERSION) {
    const missing = (
      [
        ["CHAIN_ID", CHAIN_ID],
        ["RPC_URL", RPC_URL],
        ["FACILITATOR_URL", FACILITATOR_URL],
        ["ASSET_ADDRESS", ASSET_ADDRESS],
        ["ASSET_NAME", ASSET_NAME],
        ["ASSET_VERSION", ASSET_VERSION],
      ] as const
    ).filter(([, value]) => value === undefined || value === "");
    throw new ConfigError(missing.map(([variable]) => ({ variable, message: "is required when X402_NETWORK is custom" })));
  }
  const caip2 = `eip155:${CHAIN_ID}` as const;
  return {
    name: "custom",
    label: env.NETWORK_LABEL ?? `Chain ${CHAIN_ID}`,
    chainId: CHAIN_ID,
    caip2,
    networkNames: [caip2],
    usdc: ASSET_ADDRESS,
    usdcName: ASSET_NAME,
    usdcVersion: ASSET_VERSION,
    rpcUrl: RPC_URL,
    facilitatorUrl: FACILITATOR_URL,
    explorerUrl: env.EXPLORER_URL,
    agentPrivateKey: env.AGENT_PRIVATE_KEY,
    outboundAllowlist: splitList(env.OUTBOUND_ALLOWLIST),
    devnet: undefined,
  };
}

function splitList(value: string): string[] {
  return value
    .split(",")
    .map((item) => item.trim())
    .filter(Boolean);
}

let cached: NetworkConfig | undefined;

/** The process's network configuration; a failed read is retried on the next call. */
export function getNetworkConfig(env: Env): NetworkConfig {
  cached ??= networkConfigFromEnv(env);
  return cached;
}
