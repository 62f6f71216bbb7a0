import "server-only";
/**
 * The chain's side of the payer's own withdrawal from a batch-settlement channel: the agent
 * wallet sends `initiateWithdraw(config, amount)` and, after the channel's `withdrawDelay` on the
 * chain's clock, `finalizeWithdraw(config)` (the contract allows only the payer). Sent as the
 * grants' relayer sends (lib/grants/grant-chain.ts: simulated first, a fresh nonce when another
 * sender took it, the process's one nonce counter per address, the receipt awaited), so an agent
 * key that is also the relayer never races itself. A revert is read and named, never thrown.
 */
import { BATCH_SETTLEMENT_ADDRESS } from "@x402/evm";
import { BaseError, ContractFunctionRevertedError, parseAbi, parseAbiItem, parseEventLogs, type Hex, type Log } from "viem";
import { z } from "zod";
import { relayerClients, withFreshNonce, type RelayerOptions } from "../../../grants/grant-chain";

const abi = parseAbi([
  "struct ChannelConfig { address payer; address payerAuthorizer; address receiver; address receiverAuthorizer; address token; uint40 withdrawDelay; bytes32 salt; }",
  "function initiateWithdraw(ChannelConfig config, uint128 amount)",
  "function finalizeWithdraw(ChannelConfig config)",
  "function channels(bytes32 channelId) view returns (uint128 balance, uint128 totalClaimed)",
  "function pendingWithdrawals(bytes32 channelId) view returns (uint128 amount, uint40 initiatedAt)",
  "event WithdrawInitiated(bytes32 indexed channelId, uint128 amount, uint40 initiatedAt)",
  "event WithdrawFinalized(bytes32 indexed channelId, uint128 amount)",
  "error Unauthorized()",
  "error InvalidAmount()",
  "error NoPendingWithdrawal()",
  "error WithdrawalAlreadyPending()",
  "error WithdrawalExceedsAvailable()",
  "error WithdrawDelayNotElapsed()",
]);

const withdrawFinalizedEvent = parseAbiItem("event WithdrawFinalized(bytes32 indexed channelId, uint128 amount)");

/** A finalized withdrawal is looked for in this many recent blocks (an instance died after its finalize was mined). */
const RECENT_BLOCKS = 5_000n;

const Address = z.string().regex(/^0x[0-9a-fA-F]{40}$/);
/** @x402/evm's ChannelConfig as the ledger keeps it (JSON; a number may come back as a string). */
const ConfigSchema = z.object({
  payer: Address,
  payerAuthorizer: Address,
  receiver: Address,
  receiverAuthorizer: Address,
  token: Address,
  withdrawDelay: z.coerce
    .number()
    .int()
    .min(0)
    .max(2 ** 40 - 1),
  salt: z.string().regex(/^0x[0-9a-fA-F]{64}$/),
});
export type OnChainChannelConfig = {
  payer: Hex;
  payerAuthorizer: Hex;
  receiver: Hex;
  receiverAuthorizer: Hex;
  token: Hex;
  withdrawDelay: number;
  salt: Hex;
};

/** The channel's config as the contract takes it; a malformed one is refused (TypeError). */
export function onChainConfigOf(config: Record<string, string | number>): OnChainChannelConfig {
  const parsed = ConfigSchema.safeParse(config);
  if (!parsed.success) throw new TypeError(`the channel's config: ${parsed.error.issues[0]?.message ?? "invalid"}`);
  return parsed.data as OnChainChannelConfig;
}

/** A step's outcome: mined, or refused (`sent`: a transaction left and may still be mined). */
export type Sent<T> = ({ ok: true; txHash: Hex } & T) | { ok: false; reason: string; detail: string; sent?: true };

export type WithdrawalChain = {
  /** The latest block's time, epoch seconds: the contract judges the delay by it. */
  nowSeconds(): Promise<bigint>;
  /** What the payer may withdraw now (balance − claimed) and a withdrawal already pending, as the chain holds them. */
  channel(channelId: Hex): Promise<{ available: bigint; pending?: { amount: bigint; initiatedAt: bigint } }>;
  initiate(config: OnChainChannelConfig, channelId: Hex, amount: bigint): Promise<Sent<{ initiatedAt: bigint }>>;
  /** Finalizes; the amount is what the contract paid back (its `WithdrawFinalized`). A finalize already mined is found and answered. */
  finalize(config: OnChainChannelConfig, channelId: Hex): Promise<Sent<{ amount: bigint }>>;
};

export function createWithdrawalChain(options: RelayerOptions): WithdrawalChain {
  const { reader, relayer, writer } = relayerClients(options);
  const contract = BATCH_SETTLEMENT_ADDRESS as Hex;
  type Mined = { ok: true; txHash: Hex; logs: Log[] } | { ok: false; reason: string; detail: string; sent?: true };
  async function send(what: string, simulate: () => Promise<{ request: Parameters<typeof writer.writeContract>[0] }>): Promise<Mined> {
    try {
      // Simulated first: a step the chain would refuse (too early, nothing available) costs no gas and says why.
      const { request } = await simulate();
      const txHash = await withFreshNonce(relayer.address, options.chainId, () => writer.writeContract(request));
      let receipt;
      try {
        receipt = await reader.waitForTransactionReceipt({ hash: txHash, timeout: options.timeoutMs ?? 30_000 });
      } catch (error) {
        // Sent, its outcome unknown (no receipt in time): the caller keeps its claim, and a later run reads the chain.
        return { ok: false, sent: true, reason: "unconfirmed", detail: `${what}: transaction ${txHash} has no receipt yet (${String(error)})` };
      }
      if (receipt.status !== "success") return { ok: false, reason: "reverted", detail: `${what}: transaction ${txHash} reverted` };
      return { ok: true, txHash, logs: receipt.logs.filter((log) => log.address.toLowerCase() === contract.toLowerCase()) };
    } catch (error) {
      const reverted = error instanceof BaseError ? error.walk((cause) => cause instanceof ContractFunctionRevertedError) : undefined;
      if (!(reverted instanceof ContractFunctionRevertedError)) throw error;
      const name = reverted.data?.errorName ?? "";
      return { ok: false, reason: name || "reverted", detail: `the chain refused ${what}: ${name || reverted.shortMessage}` };
    }
  }
  const ofChannel = (channelId: Hex) => (log: { args: { channelId: Hex } }) => log.args.channelId.toLowerCase() === channelId.toLowerCase();
  return {
    nowSeconds: async () => (await reader.getBlock({ blockTag: "latest" })).timestamp,
    async channel(channelId) {
      const [[balance, claimed], [amount, initiatedAt]] = await Promise.all([
        reader.readContract({ address: contract, abi, functionName: "channels", args: [channelId] }),
        reader.readContract({ address: contract, abi, functionName: "pendingWithdrawals", args: [channelId] }),
      ]);
      return { available: balance - claimed, ...(initiatedAt > 0 ? { pending: { amount, initiatedAt: BigInt(initiatedAt) } } : {}) };
    },
    async initiate(config, channelId, amount) {
      const sent = await send("initiateWithdraw", () =>
        reader.simulateContract({ address: contract, abi, functionName: "initiateWithdraw", args: [config, amount], account: relayer }),
      );
      if (!sent.ok) return sent;
      const event = parseEventLogs({ abi, eventName: "WithdrawInitiated", logs: sent.logs }).find(ofChannel(channelId));
      if (!event) return { ok: false, sent: true, reason: "no-event", detail: `transaction ${sent.txHash} logged no WithdrawInitiated` };
      return { ok: true, txHash: sent.txHash, initiatedAt: BigInt(event.args.initiatedAt) };
    },
    async finalize(config, channelId) {
      const sent = await send("finalizeWithdraw", () =>
        reader.simulateContract({ address: contract, abi, functionName: "finalizeWithdraw", args: [config], account: relayer }),
      );
      if (sent.ok) {
        const event = parseEventLogs({ abi, eventName: "WithdrawFinalized", logs: sent.logs }).find(ofChannel(channelId));
        if (!event) return { ok: false, sent: true, reason: "no-event", detail: `transaction ${sent.txHash} logged no WithdrawFinalized` };
        return { ok: true, txHash: sent.txHash, amount: event.args.amount };
      }
      if (sent.reason !== "NoPendingWithdrawal") return sent;
      // Nothing pending: a finalize of ours may have been mined before its instance recorded it.
      const latest = await reader.getBlockNumber();
      const logs = await reader.getLogs({
        address: contract,
        event: withdrawFinalizedEvent,
        args: { channelId },
        fromBlock: latest > RECENT_BLOCKS ? latest - RECENT_BLOCKS : 0n,
        toBlock: latest,
      });
      const found = logs.at(-1);
      if (!found?.transactionHash || found.args.amount === undefined) return sent;
      return { ok: true, txHash: found.transactionHash, amount: found.args.amount };
    },
  };
}
