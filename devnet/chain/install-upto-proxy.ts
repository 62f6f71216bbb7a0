import { x402UptoPermit2ProxyAddress } from "@x402/evm";
import type { Address, Chain, TestClient, Transport } from "viem";
import { loadContractArtifact } from "../contracts/contract-artifacts";

/**
 * Where @x402/evm's `upto` client names the spender and its facilitator sends settlements: one
 * address on every chain (a CREATE2 deployment), so the devnet must use it too.
 */
export const UPTO_PROXY: Address = x402UptoPermit2ProxyAddress;

/**
 * Places the devnet's build of `x402UptoPermit2Proxy` (devnet/contracts) at that address with
 * `anvil_setCode`. The contract has no constructor and no immutables (the artifact's compile
 * checks), so its runtime code alone is the whole contract. Needs Permit2 (install-permit2.ts).
 */
export async function installUptoProxy(testClient: TestClient<"anvil", Transport, Chain>): Promise<void> {
  await testClient.setCode({ address: UPTO_PROXY, bytecode: loadContractArtifact("uptoProxy").runtimeBytecode });
}
