import { BATCH_SETTLEMENT_ADDRESS, ERC3009_DEPOSIT_COLLECTOR_ADDRESS } from "@x402/evm";
import { getAddress, type Address, type Chain, type TestClient, type Transport } from "viem";
import { loadContractArtifact } from "../contracts/contract-artifacts";

/**
 * Where @x402/evm's `batch-settlement` scheme finds its contracts: the channel contract every
 * voucher's EIP-712 domain names, and the collector every ERC-3009 deposit is signed to. One
 * address each on every chain (CREATE2 deployments), so the devnet uses them too.
 */
export const BATCH_SETTLEMENT: Address = getAddress(BATCH_SETTLEMENT_ADDRESS);
export const ERC3009_DEPOSIT_COLLECTOR: Address = getAddress(ERC3009_DEPOSIT_COLLECTOR_ADDRESS);

/**
 * Places the devnet's builds of `x402BatchSettlement` and `ERC3009DepositCollector`
 * (devnet/contracts) at those addresses with `anvil_setCode`. Neither has a constructor nor
 * immutables (the artifact's compile checks), and each names the other by a constant, so their
 * runtime code is the whole of them. The package's Permit2 deposit collector is not placed: USDC
 * takes ERC-3009 deposits, which the package's client uses by default.
 */
export async function installBatchSettlement(testClient: TestClient<"anvil", Transport, Chain>): Promise<void> {
  await Promise.all([
    testClient.setCode({ address: BATCH_SETTLEMENT, bytecode: loadContractArtifact("batchSettlement").runtimeBytecode }),
    testClient.setCode({ address: ERC3009_DEPOSIT_COLLECTOR, bytecode: loadContractArtifact("erc3009DepositCollector").runtimeBytecode }),
  ]);
}
