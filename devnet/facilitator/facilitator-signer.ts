import type { FacilitatorEvmSigner } from "@x402/evm";
import { createWalletClient, http, WaitForTransactionReceiptTimeoutError, type Chain, type PublicClient, type TestClient, type Transport } from "viem";
import { createNonceManager, jsonRpc } from "viem/nonce";
import { localAccount } from "../../lib/crypto/secp256k1";
import type { DevAccount } from "../chain/dev-accounts";
import { mineBlocks } from "../chain/local-chain";
import type { DevnetFaults } from "../faults";

export type FacilitatorSignerOptions = {
  chain: Chain;
  publicClient: PublicClient<Transport, Chain>;
  testClient: TestClient<"anvil", Transport, Chain>;
  account: DevAccount;
  /** Blocks to wait for (1 = the block that includes the transaction). */
  confirmations: number;
  /** Bound on each receipt wait; past it x402 reports `settlement_pending` with the hash. */
  settleTimeoutMs: number;
  /** Instant mining makes no blocks on its own, so extra confirmations are mined on demand. */
  instantMining: boolean;
  faults: DevnetFaults;
};

/**
 * The facilitator's view of the chain, as @x402/evm's schemes expect it: reads through the
 * public client, writes from the facilitator's own funded account (which pays the gas), and
 * receipt waits bounded in time and counted in confirmations.
 */
export function createFacilitatorSigner(options: FacilitatorSignerOptions): FacilitatorEvmSigner {
  const { chain, publicClient, faults } = options;
  // The nonce manager hands out nonces in-process, so concurrent settlements cannot collide.
  // One per world: viem's shared manager caches nonces by address and chain id, and every
  // local world reuses both, so a second world in the same process would get stale nonces.
  const account = localAccount(options.account.privateKey, { nonceManager: createNonceManager({ source: jsonRpc() }) });
  const wallet = createWalletClient({ chain, account, transport: http() });

  return {
    getAddresses: () => [account.address],
    // Reads run as the facilitator's account, as they would through a wallet client: the `upto`
    // proxy lets only the facilitator named in the payment settle, so the simulation of a
    // settlement must come from it.
    readContract: (request) => publicClient.readContract({ ...(request as Parameters<typeof publicClient.readContract>[0]), account: account.address }),
    verifyTypedData: (request) => publicClient.verifyTypedData(request as Parameters<typeof publicClient.verifyTypedData>[0]),
    writeContract: (request) => wallet.writeContract(request as Parameters<typeof wallet.writeContract>[0]),
    sendTransaction: (request) => wallet.sendTransaction({ to: request.to, data: request.data }),
    getCode: (request) => publicClient.getCode(request),
    waitForTransactionReceipt: async ({ hash }) => {
      if (faults.settleTimesOut) {
        // The transaction is already broadcast and will mine; only our wait gives up, exactly
        // as it would when a real chain is slower than the facilitator's deadline.
        await new Promise((resolve) => setTimeout(resolve, options.settleTimeoutMs));
        throw new WaitForTransactionReceiptTimeoutError({ hash });
      }
      const receipt = await publicClient.waitForTransactionReceipt({
        hash,
        timeout: options.settleTimeoutMs,
        confirmations: options.instantMining ? 1 : options.confirmations,
      });
      if (options.instantMining && options.confirmations > 1) await mineBlocks(options.testClient, options.confirmations - 1);
      return receipt;
    },
  };
}
