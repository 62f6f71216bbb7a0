import "server-only";
/**
 * What the agent reads from the chain: USDC balances, whether an EIP-3009 authorization was
 * used, and the transaction that used it (to reconcile a settlement the service did not
 * report).
 */
import { fetch as undiciFetch } from "undici";
import { createPublicClient, decodeEventLog, erc20Abi, http, parseAbiItem, type PublicClient } from "viem";

const authorizationStateAbi = [
  {
    type: "function",
    name: "authorizationState",
    stateMutability: "view",
    inputs: [
      { name: "authorizer", type: "address" },
      { name: "nonce", type: "bytes32" },
    ],
    outputs: [{ name: "", type: "bool" }],
  },
] as const;

const authorizationUsedEvent = parseAbiItem("event AuthorizationUsed(address indexed authorizer, bytes32 indexed nonce)");

export type ChainReader = {
  balanceOf(owner: `0x${string}`): Promise<bigint>;
  isAuthorizationUsed(authorizer: `0x${string}`, nonce: `0x${string}`): Promise<boolean>;
  /** The hash of the transaction that used the authorization, if it can be found. */
  findAuthorizationTransaction(authorizer: `0x${string}`, nonce: `0x${string}`): Promise<`0x${string}` | undefined>;
  /**
   * Whether the mined transaction used this authorization on our token: undefined while no
   * receipt exists. A service's word that it settled is believed only after this.
   */
  transactionUsedAuthorization(hash: `0x${string}`, authorizer: `0x${string}`, nonce: `0x${string}`): Promise<boolean | undefined>;
  /**
   * The latest block's timestamp, epoch seconds: the chain's own clock, the one the token
   * contract checks `validBefore` against, whatever any instance's clock says.
   */
  latestBlockTime(): Promise<bigint>;
};

export function createChainReader(options: { rpcUrl: string; usdc: `0x${string}`; timeoutMs?: number }): ChainReader {
  const client: PublicClient = createPublicClient({
    // undici's own fetch, not the global one: under Next the global fetch is wrapped for its
    // data cache and tracing, which JSON-RPC reads never use and which cost about 0.5 ms of
    // CPU per call in a profile of the server under load.
    transport: http(options.rpcUrl, { timeout: options.timeoutMs ?? 5_000, retryCount: 1, fetchFn: undiciFetch as typeof fetch }),
  });
  return {
    balanceOf: (owner) =>
      client.readContract({ address: options.usdc, abi: erc20Abi, functionName: "balanceOf", args: [owner] }),
    isAuthorizationUsed: (authorizer, nonce) =>
      client.readContract({
        address: options.usdc,
        abi: authorizationStateAbi,
        functionName: "authorizationState",
        args: [authorizer, nonce],
      }),
    latestBlockTime: async () => (await client.getBlock({ blockTag: "latest" })).timestamp,
    async findAuthorizationTransaction(authorizer, nonce) {
      const latest = await client.getBlockNumber();
      // Authorizations live minutes, so a recent window of blocks is enough.
      const fromBlock = latest > 5_000n ? latest - 5_000n : 0n;
      const logs = await client.getLogs({
        address: options.usdc,
        event: authorizationUsedEvent,
        args: { authorizer, nonce },
        fromBlock,
        toBlock: latest,
      });
      return logs.at(-1)?.transactionHash ?? undefined;
    },
    async transactionUsedAuthorization(hash, authorizer, nonce) {
      let receipt;
      try {
        receipt = await client.getTransactionReceipt({ hash });
      } catch {
        return undefined;
      }
      if (receipt.status !== "success") return false;
      return receipt.logs.some((log) => {
        if (log.address.toLowerCase() !== options.usdc.toLowerCase()) return false;
        try {
          const decoded = decodeEventLog({ abi: [authorizationUsedEvent], data: log.data, topics: log.topics });
          return decoded.args.authorizer.toLowerCase() === authorizer.toLowerCase() && decoded.args.nonce.toLowerCase() === nonce.toLowerCase();
        } catch {
          return false;
        }
      });
    },
  };
}
