import "server-only";
/**
 * What the agent reads from the chain: USDC balances, whether an EIP-3009 authorization or an
 * `upto` Permit2 permit was used, and the transaction that used it (to reconcile a settlement
 * the service did not report), with the amount a permit actually moved.
 */
import { fetch as undiciFetch } from "undici";
import { createPublicClient, decodeEventLog, erc20Abi, http, parseAbiItem, type PublicClient } from "viem";
import { readPermitSettlement, type PermitRef, type PermitSettlement } from "./permit2-settlement";
import { PERMIT2, permit2NonceBit } from "./upto-permit2";

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
const nonceBitmapAbi = [parseAbiItem("function nonceBitmap(address owner, uint256 word) view returns (uint256)")] as const;
const transferEvent = parseAbiItem("event Transfer(address indexed from, address indexed to, uint256 value)");

/** Authorizations live minutes, so a recent window of blocks is enough to find their use. */
const RECENT_BLOCKS = 5_000n;
/** A batch-settlement contract's claim on one channel (the scheme's EVM spec names this event). */
const channelClaimedEvent = parseAbiItem("event Claimed(bytes32 indexed channelId, address indexed sender, uint128 claimed, uint128 totalClaimed)");

/** A batch-settlement contract's payout of what a receiver has claimed so far, over all its channels in one token. */
const receiverSettledEvent = parseAbiItem("event Settled(address indexed receiver, address indexed token, address indexed sender, uint128 amount)");

/** Where a log sits in the chain's order: its block, then its index in the block. */
export type LogPosition = { blockNumber: bigint; logIndex: number };
/** One claim a service made on a channel: its transaction, what it claimed, and the channel's claimed total after it. */
export type ChannelClaim = LogPosition & { txHash: `0x${string}`; claimed: bigint; totalClaimed: bigint };
/**
 * One payout to a receiver (`settle(receiver, token)`): it moves every claim of that receiver
 * and token made before it, on every channel, from the contract to the receiver.
 */
export type ReceiverSettlement = LogPosition & { txHash: `0x${string}`; amount: bigint };
/** At most this many of the payer's recent transfers to the payee are opened to find a permit's. */
const MAX_CANDIDATES = 20;

export type { PermitRef, PermitSettlement } from "./permit2-settlement";

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
  /**
   * What the owner lets Permit2 move of our token: an upto permit can be settled only up to
   * this (the one-time approve every Permit2 payer makes first).
   */
  permit2Allowance(owner: `0x${string}`): Promise<bigint>;
  /** Whether Permit2's nonce bitmap marks the owner's unordered nonce used (a permit over it was settled). */
  isPermit2NonceUsed(owner: `0x${string}`, nonce: bigint): Promise<boolean>;
  /**
   * What a mined transaction settled of this upto permit: the amount it moved from the payer
   * to the payee; false when it is not a successful settlement of this permit; undefined while
   * no receipt exists. A service's word that it settled, and what it says it charged, are
   * believed only after this.
   */
  permitSettlementIn(hash: `0x${string}`, permit: PermitRef): Promise<PermitSettlement | false | undefined>;
  /** The settlement of this permit among the recent transfers from payer to payee, if one can be found. */
  findPermitSettlement(permit: PermitRef): Promise<(PermitSettlement & { txHash: `0x${string}` }) | undefined>;
  /**
   * A view call as the official x402 client's signer makes one: its batch-settlement code reads
   * a channel's balance and claims with it to check a service's corrective 402. Absent: such a
   * 402 cannot be checked, and the call is not retried.
   */
  readContract?(args: ContractRead): Promise<unknown>;
  /** The recent claims on a payment channel, oldest first (the contract's `Claimed` logs). */
  channelClaims?(contract: `0x${string}`, channelId: `0x${string}`): Promise<ChannelClaim[]>;
  /** The receiver's payouts in this token from `fromBlock` (at most the recent window) on, oldest first (the contract's `Settled` logs). */
  receiverSettlements?(contract: `0x${string}`, receiver: `0x${string}`, token: `0x${string}`, fromBlock: bigint): Promise<ReceiverSettlement[]>;
};

/** The view call the official client's `ClientEvmSigner.readContract` makes. */
export type ContractRead = { address: `0x${string}`; abi: readonly unknown[]; functionName: string; args?: readonly unknown[] };

export function createChainReader(options: { rpcUrl: string; usdc: `0x${string}`; timeoutMs?: number }): ChainReader {
  // No cached block number: a search for a settlement up to a head read seconds ago would miss
  // the transaction just mined.
  const client: PublicClient = createPublicClient({
    cacheTime: 0,
    // undici's own fetch, not the global one: under Next the global fetch is wrapped for its
    // data cache and tracing, which JSON-RPC reads never use and which cost about 0.5 ms of
    // CPU per call in a profile of the server under load.
    transport: http(options.rpcUrl, { timeout: options.timeoutMs ?? 5_000, retryCount: 1, fetchFn: undiciFetch as typeof fetch }),
  });
  // viem's client makes the official client's untyped view calls as they come.
  const contracts: { readContract(args: ContractRead): Promise<unknown> } = client;
  async function permitSettlementIn(hash: `0x${string}`, permit: PermitRef): Promise<PermitSettlement | false | undefined> {
    let receipt;
    try {
      receipt = await client.getTransactionReceipt({ hash });
    } catch {
      return undefined;
    }
    const transaction = await client.getTransaction({ hash });
    return readPermitSettlement({ receipt, transaction, usdc: options.usdc, permit });
  }
  return {
    balanceOf: (owner) => client.readContract({ address: options.usdc, abi: erc20Abi, functionName: "balanceOf", args: [owner] }),
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
      const fromBlock = latest > RECENT_BLOCKS ? latest - RECENT_BLOCKS : 0n;
      const logs = await client.getLogs({
        address: options.usdc,
        event: authorizationUsedEvent,
        args: { authorizer, nonce },
        fromBlock,
        toBlock: latest,
      });
      return logs.at(-1)?.transactionHash ?? undefined;
    },
    permit2Allowance: (owner) => client.readContract({ address: options.usdc, abi: erc20Abi, functionName: "allowance", args: [owner, PERMIT2] }),
    async isPermit2NonceUsed(owner, nonce) {
      const { word, bit } = permit2NonceBit(nonce);
      const bitmap = await client.readContract({ address: PERMIT2, abi: nonceBitmapAbi, functionName: "nonceBitmap", args: [owner, word] });
      return (bitmap & bit) !== 0n;
    },
    permitSettlementIn,
    async findPermitSettlement(permit) {
      const latest = await client.getBlockNumber();
      const fromBlock = latest > RECENT_BLOCKS ? latest - RECENT_BLOCKS : 0n;
      // Permit2 logs no event with the nonce: the settlement is among the payer's transfers to
      // the payee, and its calldata names the nonce. Newest first, a bounded number of them.
      const logs = await client.getLogs({
        address: options.usdc,
        event: transferEvent,
        args: { from: permit.payer, to: permit.payTo },
        fromBlock,
        toBlock: latest,
      });
      const hashes = [
        ...new Set(
          logs
            .map((log) => log.transactionHash)
            .filter((hash): hash is `0x${string}` => Boolean(hash))
            .reverse(),
        ),
      ].slice(0, MAX_CANDIDATES);
      for (const hash of hashes) {
        const settlement = await permitSettlementIn(hash, permit);
        if (settlement) return { ...settlement, txHash: hash };
      }
      return undefined;
    },
    readContract: (args) => contracts.readContract(args),
    async channelClaims(contract, channelId) {
      const latest = await client.getBlockNumber();
      const fromBlock = latest > RECENT_BLOCKS ? latest - RECENT_BLOCKS : 0n;
      const logs = await client.getLogs({ address: contract, event: channelClaimedEvent, args: { channelId }, fromBlock, toBlock: latest });
      return logs.flatMap((log) =>
        log.transactionHash && log.args.claimed !== undefined && log.args.totalClaimed !== undefined
          ? [
              {
                txHash: log.transactionHash,
                blockNumber: log.blockNumber,
                logIndex: log.logIndex,
                claimed: log.args.claimed,
                totalClaimed: log.args.totalClaimed,
              },
            ]
          : [],
      );
    },
    async receiverSettlements(contract, receiver, token, fromBlock) {
      // The recent window, as for claims: a reconciler that runs every few minutes sees every
      // payout while it is recent, and an RPC's bound on a log query's range is never reached.
      const latest = await client.getBlockNumber();
      const recent = latest > RECENT_BLOCKS ? latest - RECENT_BLOCKS : 0n;
      const from = fromBlock > recent ? fromBlock : recent;
      const logs = await client.getLogs({ address: contract, event: receiverSettledEvent, args: { receiver, token }, fromBlock: from, toBlock: latest });
      return logs.flatMap((log) =>
        log.transactionHash && log.args.amount !== undefined
          ? [{ txHash: log.transactionHash, blockNumber: log.blockNumber, logIndex: log.logIndex, amount: log.args.amount }]
          : [],
      );
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
