/**
 * Reads an `upto` settlement out of a mined transaction: did it settle this very permit, and
 * how much did it move? Permit2 logs no event that names a nonce, so the proof is the call
 * itself: a successful call of x402's upto proxy (`settle` or `settleWithPermit`) whose permit
 * carries our nonce, owner, token and payee (Permit2 checked our signature over exactly those
 * before it moved anything), and the token's `Transfer` from payer to payee of the amount the
 * call named. Pure, so it is tested on receipts made by hand.
 */
import { x402UptoPermit2ProxyABI } from "@x402/evm";
import { decodeEventLog, decodeFunctionData, parseAbiItem, type Hex } from "viem";
import { UPTO_PROXY } from "./upto-permit2";

/** The permit a settlement is looked for: whose, to whom, and its Permit2 nonce. */
export type PermitRef = { payer: `0x${string}`; payTo: `0x${string}`; nonce: bigint };

/** What the chain shows a permit settled: the amount moved from payer to payee, at most its ceiling. */
export type PermitSettlement = { amount: bigint };

const transferEvent = parseAbiItem("event Transfer(address indexed from, address indexed to, uint256 value)");

type MinedCall = {
  receipt: { status: "success" | "reverted"; logs: readonly { address: string; data: Hex; topics: readonly Hex[] }[] };
  transaction: { to: `0x${string}` | null; input: Hex };
  usdc: `0x${string}`;
  permit: PermitRef;
};

export function readPermitSettlement({ receipt, transaction, usdc, permit }: MinedCall): PermitSettlement | false {
  if (receipt.status !== "success") return false;
  if (!transaction.to || !same(transaction.to, UPTO_PROXY)) return false;
  let call;
  try {
    call = decodeFunctionData({ abi: x402UptoPermit2ProxyABI, data: transaction.input });
  } catch {
    return false;
  }
  const args = call.functionName === "settle" ? call.args : call.functionName === "settleWithPermit" ? call.args.slice(1) : undefined;
  if (!args) return false;
  const [signed, amount, owner, witness] = args as unknown as [
    { permitted: { token: `0x${string}`; amount: bigint }; nonce: bigint },
    bigint,
    `0x${string}`,
    { to: `0x${string}` },
  ];
  if (signed.nonce !== permit.nonce || !same(owner, permit.payer) || !same(witness.to, permit.payTo) || !same(signed.permitted.token, usdc)) return false;
  // The proxy and Permit2 refuse more than the signed amount; checked again, as a reader should.
  if (amount > signed.permitted.amount) return false;
  const moved = receipt.logs.some((log) => {
    if (!same(log.address, usdc)) return false;
    try {
      const decoded = decodeEventLog({ abi: [transferEvent], data: log.data, topics: log.topics as [Hex, ...Hex[]] });
      return same(decoded.args.from, permit.payer) && same(decoded.args.to, permit.payTo) && decoded.args.value === amount;
    } catch {
      return false;
    }
  });
  return moved ? { amount } : false;
}

function same(left: string, right: string): boolean {
  return left.toLowerCase() === right.toLowerCase();
}
