import "server-only";
/**
 * The network this deployment pays on, resolved from the environment: a Base preset, or the
 * local world whose coordinates `npm run devnet` writes to DEVNET_FILE.
 */
import path from "node:path";
import type { Env } from "../env";
import { AppError } from "../errors";
import { readDevnetCoordinates, type DevnetCoordinates } from "./devnet-coordinates";
import { NETWORK_PRESETS, type NetworkName } from "./network-presets";

export type NetworkConfig = {
  name: NetworkName;
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

/** Builds the network configuration for the local world from its coordinates. */
export function networkConfigFromDevnet(devnet: DevnetCoordinates, env: Pick<Env, "AGENT_PRIVATE_KEY" | "OUTBOUND_ALLOWLIST">): NetworkConfig {
  const preset = NETWORK_PRESETS.local;
  // The services only: the chain's RPC and the facilitator share 127.0.0.1 with them, and listed
  // here they were callable as services (a POST to the RPC moved the agent's USDC).
  const hosts = [...new Set(devnet.services.map((service) => new URL(service.url).host))];
  return {
    name: "local",
    chainId: devnet.chainId,
    caip2: `eip155:${devnet.chainId}`,
    networkNames: [`eip155:${devnet.chainId}`, ...(devnet.v1Network ? [devnet.v1Network] : [])],
    usdc: devnet.usdc as `0x${string}`,
    usdcName: devnet.usdcName ?? preset.usdcName,
    usdcVersion: devnet.usdcVersion ?? preset.usdcVersion,
    rpcUrl: devnet.rpcUrl,
    facilitatorUrl: devnet.facilitatorUrl,
    explorerUrl: undefined,
    agentPrivateKey: env.AGENT_PRIVATE_KEY ?? (devnet.accounts.agent.privateKey as `0x${string}`),
    outboundAllowlist: [...hosts, ...splitList(env.OUTBOUND_ALLOWLIST)],
    devnet,
  };
}

/**
 * The payment network's own servers: the chain's RPC and the facilitator, and on the local world
 * the devnet's own even where discovery is pointed elsewhere. The agent pays through them and
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
  const preset = NETWORK_PRESETS[env.X402_NETWORK];
  const rpcUrl = env.RPC_URL ?? preset.defaultRpcUrl;
  const facilitatorUrl = env.FACILITATOR_URL ?? preset.defaultFacilitatorUrl;
  if (!rpcUrl || !facilitatorUrl || !preset.usdc) {
    throw new AppError("unavailable:not_configured", { details: `network ${preset.name} lacks RPC or facilitator URL` });
  }
  return {
    name: preset.name,
    chainId: preset.chainId,
    caip2: preset.caip2,
    networkNames: [preset.caip2, preset.name],
    usdc: preset.usdc,
    usdcName: preset.usdcName,
    usdcVersion: preset.usdcVersion,
    rpcUrl,
    facilitatorUrl,
    explorerUrl: preset.explorerUrl,
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
