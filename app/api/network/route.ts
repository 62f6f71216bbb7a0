import { getEnv } from "@/lib/env";
import { problemResponse } from "@/lib/errors";
import { getNetworkConfig } from "@/lib/network/network-config";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

/**
 * The public network facts the browser needs (chain, USDC contract, explorer) and, in the local
 * world only, the anvil RPC URL and the demo user's address for the "Local demo wallet".
 * Never a key, never the facilitator or any internal URL beyond the local chain's RPC.
 */
export function GET(): Response {
  try {
    const config = getNetworkConfig(getEnv());
    const local = config.name === "local";
    const demoUser = local ? config.devnet?.accounts.user.address : undefined;
    const body = {
      network: config.name,
      chainId: config.chainId,
      caip2: config.caip2,
      usdc: config.usdc,
      explorerUrl: config.explorerUrl ?? null,
      ...(local ? { rpcUrl: config.rpcUrl } : {}),
      ...(demoUser ? { demoUser: { address: demoUser } } : {}),
    };
    return Response.json(body, { headers: { "Cache-Control": "no-store" } });
  } catch (error) {
    return problemResponse(error);
  }
}
