/** What the global setup hands to every browser test (vitest's provide/inject). */
export type E2EContext = {
  /** The built app, served by `next start`, wired to the local world. */
  baseUrl: string;
  /** The coordinates file the app reads (DEVNET_FILE). */
  devnetFile: string;
  rpcUrl: string;
  chainId: number;
  usdc: `0x${string}`;
  userAddress: `0x${string}`;
  agentAddress: `0x${string}`;
  /** The served app's ADMIN_TOKEN (the operator's view of payment histories). */
  adminToken: string;
};

declare module "vitest" {
  export interface ProvidedContext {
    e2e: E2EContext;
  }
}
