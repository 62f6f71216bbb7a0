import { getEnv } from "@/lib/env";
import { problemResponse } from "@/lib/errors";
import { getNetworkConfig } from "@/lib/network/network-config";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

/**
 * The public network facts the browser needs (chain and its name, token contract, explorer)
 * and, in the local world only, the anvil RPC URL and the demo user's address for the "Local
 * demo wallet". Never a key, never the facilitator or any internal URL beyond the local chain's
 * RPC. A custom chain's RPC_URL is not served: operators' RPC URLs often carry an API key in
 * their path or query, so the browser reads that chain through the wallet it connects.
 */
export function GET(): Response {
  try {
    const config = getNetworkConfig(getEnv());
    const local = config.name === "local";
    const demoUser = local ? config.devnet?.accounts.user.address : undefined;
    const body = {
      network: config.name,
      label: config.label,
      chainId: config.chainId,
      caip2: config.caip2,
      usdc: config.usdc,
      explorerUrl: config.explorerUrl ?? null,
      // The coordinates file's anvil, even where RPC_URL replaces it for the server: that one is
      // the operator's and may carry a key, the file's is loopback and keyless.
      ...(local && config.devnet ? { rpcUrl: config.devnet.rpcUrl } : {}),
      ...(demoUser ? { demoUser: { address: demoUser } } : {}),
    };
    return Response.json(body, { headers: { "Cache-Control": "no-store" } });
  } catch (error) {
    return problemResponse(error);
  }
}
