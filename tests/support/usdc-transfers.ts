import { createPublicClient, erc20Abi, http, parseEventLogs, type Hex } from "viem";

/** The USDC transfers of a transaction, as `[from, to, value]`: what the chain says moved. */
export async function usdcTransfers(world: { rpcUrl: string; usdc: string }, txHash: Hex): Promise<[string, string, bigint][]> {
  const chain = createPublicClient({ transport: http(world.rpcUrl) });
  const receipt = await chain.getTransactionReceipt({ hash: txHash });
  return parseEventLogs({ abi: erc20Abi, eventName: "Transfer", logs: receipt.logs })
    .filter((log) => log.address.toLowerCase() === world.usdc.toLowerCase())
    .map((log) => [log.args.from, log.args.to, log.args.value]);
}
