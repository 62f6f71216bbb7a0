/**
 * The one ERC-20 `approve(Permit2, amount)` the page ever asks a wallet to send, mined before
 * anything signed for Permit2 is used: by a metered payment's approval card and by the grant
 * card. Always for a stated amount, never unlimited (permit2-allowance.ts says why).
 */
import { useCallback } from "react";
import { erc20Abi } from "viem";
import { useConfig, useWriteContract } from "wagmi";
import { waitForTransactionReceipt } from "wagmi/actions";

export type Permit2Approve = { token: `0x${string}`; spender: `0x${string}`; amount: bigint; chainId: number };

/** Sends the approve from the connected wallet and waits for it: true when it succeeded on chain. */
export function usePermit2Approve(): (approve: Permit2Approve) => Promise<boolean> {
  const { writeContractAsync } = useWriteContract();
  const config = useConfig();
  return useCallback(
    async ({ token, spender, amount, chainId }: Permit2Approve) => {
      const hash = await writeContractAsync({ address: token, abi: erc20Abi, functionName: "approve", args: [spender, amount], chainId });
      const receipt = await waitForTransactionReceipt(config, { hash, chainId });
      return receipt.status === "success";
    },
    [writeContractAsync, config],
  );
}
