import type { HTTPFacilitatorClient } from "@x402/core/server";
import type { PaymentRequirements } from "@x402/core/types";
import { BATCH_SETTLEMENT_DOMAIN, claimBatchTypes } from "@x402/evm";
import { computeChannelId } from "@x402/evm/batch-settlement/client";
import type { Channel } from "@x402/evm/batch-settlement/server";
import { createPublicClient, createWalletClient, http, type Chain, type Hex } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { BATCH_SETTLEMENT } from "../chain/install-batch-settlement";
import { loadContractArtifact } from "../contracts/contract-artifacts";
import { payeeAuthorizer } from "./channel-server";

/** One attempt of the hostile service to claim more than a payer's highest voucher. */
export type OverClaim = {
  channelId: Hex;
  /** The highest `maxClaimableAmount` the payer signed (base units). */
  highestVoucher: string;
  /** What the service tried to claim: the channel's whole balance, above the voucher. */
  attempted: string;
  /** The facilitator's answer: it simulates every claim on the contract before sending it. */
  facilitator: { success: boolean; errorReason?: string };
  /** The same claim sent straight to the contract from the payee's own account, and how it ended. */
  transaction: Hex;
  status: "success" | "reverted";
};

/** Enough for a one-row claim that runs to its end; given outright, so nothing is estimated (and refused) before sending. */
const CLAIM_GAS = 400_000n;

/**
 * The hostile service's claim round: for every channel it holds a voucher for, it claims the
 * channel's whole balance instead of what the payer signed, first through the facilitator (as an
 * honest service claims), then, refused there, as a transaction of its own straight to the
 * contract, so that the contract itself is seen refusing it on chain.
 */
export async function attemptOverClaims(input: {
  channels: readonly Channel[];
  requirements: PaymentRequirements;
  facilitator: HTTPFacilitatorClient;
  payeeKey: Hex;
  chain: Chain;
}): Promise<OverClaim[]> {
  const { chain, requirements } = input;
  const account = privateKeyToAccount(input.payeeKey);
  const wallet = createWalletClient({ chain, account, transport: http() });
  const reader = createPublicClient({ chain, transport: http(), pollingInterval: 50 });
  const { abi } = loadContractArtifact("batchSettlement");
  const attempts: OverClaim[] = [];
  for (const channel of input.channels) {
    const highest = BigInt(channel.signedMaxClaimable);
    if (highest === 0n) continue;
    const balance = BigInt(channel.balance);
    const attempted = balance > highest ? balance : highest + 1n;
    const row = {
      voucher: { channel: channel.channelConfig, maxClaimableAmount: highest.toString() },
      signature: channel.signature as Hex,
      totalClaimed: attempted.toString(),
    };
    const claimAuthorizerSignature = await payeeAuthorizer(input.payeeKey).signTypedData({
      domain: { ...BATCH_SETTLEMENT_DOMAIN, chainId: chain.id, verifyingContract: BATCH_SETTLEMENT },
      types: claimBatchTypes,
      primaryType: "ClaimBatch",
      message: { claims: [{ channelId: computeChannelId(channel.channelConfig, chain.id), maxClaimableAmount: highest, totalClaimed: attempted }] },
    });
    const answer = await input.facilitator
      .settle({ x402Version: 2, accepted: requirements, payload: { type: "claim", claims: [row], claimAuthorizerSignature } }, requirements)
      .catch((error: unknown) => ({ success: false, errorReason: error instanceof Error ? error.message : String(error) }));
    const transaction = await wallet.writeContract({
      address: BATCH_SETTLEMENT,
      abi,
      functionName: "claim",
      args: [[{ voucher: { channel: channel.channelConfig, maxClaimableAmount: highest }, signature: row.signature, totalClaimed: attempted }]],
      gas: CLAIM_GAS,
    });
    const receipt = await reader.waitForTransactionReceipt({ hash: transaction });
    attempts.push({
      channelId: channel.channelId as Hex,
      highestVoucher: highest.toString(),
      attempted: attempted.toString(),
      facilitator: { success: answer.success, ...(answer.errorReason ? { errorReason: answer.errorReason } : {}) },
      transaction,
      status: receipt.status,
    });
  }
  return attempts;
}
