import "server-only";
/**
 * The money moves of a grant, all sent by the relayer (the only account that pays gas):
 * `pull` asks Permit2 to move part of the grant from the user to their payer key
 * (`Permit2.transferFrom`, which Permit2 refuses beyond the amount or after the expiry the user
 * signed), and `sweep` returns a payer key's float to the user with an EIP-3009 authorization
 * the payer key signs and the relayer submits, so the payer key never needs gas.
 */
import { randomBytes } from "node:crypto";
import { authorizationTypes } from "@x402/evm";
import { BaseError, ContractFunctionRevertedError, erc20Abi, maxUint256, parseAbi, parseSignature, toHex, type Hex } from "viem";
import { localAccount } from "../crypto/secp256k1";
import { PERMIT2 } from "./grant-permit";
import { permit2Abi, relayerClients, withFreshNonce, type RelayerOptions } from "./grant-chain";

const transferWithAuthorizationAbi = parseAbi([
  "function transferWithAuthorization(address from, address to, uint256 value, uint256 validAfter, uint256 validBefore, bytes32 nonce, uint8 v, bytes32 r, bytes32 s)",
]);
const erc2612Abi = parseAbi([
  "function permit(address owner, address spender, uint256 value, uint256 deadline, uint8 v, bytes32 r, bytes32 s)",
  "function nonces(address owner) view returns (uint256)",
]);
const ERC2612_TYPES = {
  Permit: [
    { name: "owner", type: "address" },
    { name: "spender", type: "address" },
    { name: "value", type: "uint256" },
    { name: "nonce", type: "uint256" },
    { name: "deadline", type: "uint256" },
  ],
} as const;

export type MoveOutcome = { ok: true; transaction: Hex } | { ok: false; reason: "exceeds-allowance" | "expired" | "reverted"; detail: string };

export interface GrantFunds {
  /** Moves `amount` of the user's USDC to `to` under the user's Permit2 allowance to the relayer. */
  pull(owner: `0x${string}`, to: `0x${string}`, amount: bigint): Promise<MoveOutcome>;
  /** Returns `amount` from a payer key to `to` (its user); the payer key signs, the relayer sends. */
  sweep(payerPrivateKey: Hex, to: `0x${string}`, amount: bigint): Promise<MoveOutcome>;
  balanceOf(owner: `0x${string}`): Promise<bigint>;
  /**
   * Lets Permit2 move a payer key's USDC (a metered payment is a Permit2 permit the payer key
   * signs): the payer key signs an EIP-2612 permit, the relayer submits it, so the payer key
   * still needs no gas. Unlimited on purpose: only this server signs for a payer key, and it
   * holds money only while a payment is in flight.
   */
  approvePermit2(payerPrivateKey: Hex): Promise<MoveOutcome>;
}

export function createGrantFunds(options: RelayerOptions & { usdcName: string; usdcVersion: string }): GrantFunds {
  const { reader, relayer, writer } = relayerClients(options);
  async function send(simulate: () => Promise<{ request: Parameters<typeof writer.writeContract>[0] }>): Promise<MoveOutcome> {
    try {
      // Simulated first: a move the chain would refuse costs no gas and says why.
      const { request } = await simulate();
      const transaction = await withFreshNonce(relayer.address, options.chainId, () => writer.writeContract(request));
      const receipt = await reader.waitForTransactionReceipt({ hash: transaction, timeout: options.timeoutMs ?? 30_000 });
      return receipt.status === "success" ? { ok: true, transaction } : { ok: false, reason: "reverted", detail: `transaction ${transaction} reverted` };
    } catch (error) {
      return refusalOf(error);
    }
  }
  return {
    balanceOf: (owner) => reader.readContract({ address: options.usdc, abi: erc20Abi, functionName: "balanceOf", args: [owner] }),
    pull: (owner, to, amount) =>
      send(() =>
        reader.simulateContract({ address: PERMIT2, abi: permit2Abi, functionName: "transferFrom", args: [owner, to, amount, options.usdc], account: relayer }),
      ),
    async approvePermit2(payerPrivateKey) {
      const payer = localAccount(payerPrivateKey);
      const domain = { name: options.usdcName, version: options.usdcVersion, chainId: options.chainId, verifyingContract: options.usdc };
      const [nonce, block] = await Promise.all([
        reader.readContract({ address: options.usdc, abi: erc2612Abi, functionName: "nonces", args: [payer.address] }),
        reader.getBlock({ blockTag: "latest" }),
      ]);
      const message = { owner: payer.address, spender: PERMIT2, value: maxUint256, nonce, deadline: block.timestamp + 600n };
      const { v, r, s, yParity } = parseSignature(await payer.signTypedData({ domain, types: ERC2612_TYPES, primaryType: "Permit", message }));
      const args = [message.owner, message.spender, message.value, message.deadline, Number(v ?? BigInt(27 + yParity)), r, s] as const;
      return send(() => reader.simulateContract({ address: options.usdc, abi: erc2612Abi, functionName: "permit", args, account: relayer }));
    },
    async sweep(payerPrivateKey, to, amount) {
      const payer = localAccount(payerPrivateKey);
      const nowSeconds = (await reader.getBlock({ blockTag: "latest" })).timestamp;
      const message = { from: payer.address, to, value: amount, validAfter: 0n, validBefore: nowSeconds + 600n, nonce: toHex(randomBytes(32)) };
      const signature = await payer.signTypedData({
        domain: { name: options.usdcName, version: options.usdcVersion, chainId: options.chainId, verifyingContract: options.usdc },
        types: { TransferWithAuthorization: authorizationTypes.TransferWithAuthorization },
        primaryType: "TransferWithAuthorization",
        message,
      });
      const { v, r, s, yParity } = parseSignature(signature);
      const args = [
        message.from,
        message.to,
        message.value,
        message.validAfter,
        message.validBefore,
        message.nonce,
        Number(v ?? BigInt(27 + yParity)),
        r,
        s,
      ] as const;
      return send(() =>
        reader.simulateContract({
          address: options.usdc,
          abi: transferWithAuthorizationAbi,
          functionName: "transferWithAuthorization",
          args,
          account: relayer,
        }),
      );
    },
  };
}

function refusalOf(error: unknown): MoveOutcome {
  const reverted = error instanceof BaseError ? error.walk((cause) => cause instanceof ContractFunctionRevertedError) : undefined;
  if (!(reverted instanceof ContractFunctionRevertedError)) throw error;
  const name = reverted.data?.errorName ?? "";
  const detail = `the chain refused: ${name || reverted.shortMessage}`;
  if (name === "InsufficientAllowance") return { ok: false, reason: "exceeds-allowance", detail };
  if (name === "AllowanceExpired") return { ok: false, reason: "expired", detail };
  return { ok: false, reason: "reverted", detail };
}
