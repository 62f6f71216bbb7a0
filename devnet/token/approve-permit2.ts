import { createWalletClient, erc20Abi, http, maxUint256, type Address, type Chain, type PublicClient, type Transport } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import type { DevAccount } from "../chain/dev-accounts";
import { PERMIT2 } from "../chain/install-permit2";

/**
 * Each owner approves Permit2 for the token, for the maximum: the one-time step the `upto`
 * scheme (and `exact` over Permit2) needs before a first payment, done at start so the demo
 * wallets can pay metered services at once. Each approval is that owner's own transaction.
 */
export async function approvePermit2(options: {
  chain: Chain;
  publicClient: PublicClient<Transport, Chain>;
  token: Address;
  owners: readonly DevAccount[];
}): Promise<void> {
  const { chain, publicClient, token } = options;
  const hashes = await Promise.all(
    options.owners.map((owner) =>
      createWalletClient({ chain, transport: http(), account: privateKeyToAccount(owner.privateKey) }).writeContract({
        address: token,
        abi: erc20Abi,
        functionName: "approve",
        args: [PERMIT2, maxUint256],
      }),
    ),
  );
  const receipts = await Promise.all(hashes.map((hash) => publicClient.waitForTransactionReceipt({ hash })));
  const failed = receipts.find((receipt) => receipt.status !== "success");
  if (failed) throw new Error(`Permit2 approval ${failed.transactionHash} failed`);
}
