/**
 * Reading an upto settlement out of a mined transaction: only a successful call of the upto
 * proxy with our permit (nonce, owner, token, payee) whose Transfer moved the amount it named.
 */
import { x402UptoPermit2ProxyABI } from "@x402/evm";
import { encodeAbiParameters, encodeEventTopics, encodeFunctionData, parseAbiItem, type Hex } from "viem";
import { describe, expect, it } from "vitest";
import { readPermitSettlement } from "./permit2-settlement";
import { UPTO_PROXY } from "./upto-permit2";

const usdc = "0x5FbDB2315678afecb367f032d93F642f64180aa3" as const;
const payer = "0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC" as const;
const payTo = "0x9965507D1a55bcC2695C58ba16FB37d819B0A4dc" as const;
const facilitator = "0x70997970C51812dc3A010C7d01b50e0d17dc79C8" as const;
const nonce = BigInt(`0x${"3c".repeat(32)}`);
const transfer = parseAbiItem("event Transfer(address indexed from, address indexed to, uint256 value)");

function settleCall(
  overrides: { nonce?: bigint; amount?: bigint; ceiling?: bigint; owner?: `0x${string}`; to?: `0x${string}`; token?: `0x${string}` } = {},
): Hex {
  return encodeFunctionData({
    abi: x402UptoPermit2ProxyABI,
    functionName: "settle",
    args: [
      { permitted: { token: overrides.token ?? usdc, amount: overrides.ceiling ?? 50_000n }, nonce: overrides.nonce ?? nonce, deadline: 1_700_000_020n },
      overrides.amount ?? 3_000n,
      overrides.owner ?? payer,
      { to: overrides.to ?? payTo, facilitator, validAfter: 0n },
      "0x1234",
    ],
  });
}

function transferLog(value: bigint, from: `0x${string}` = payer, to: `0x${string}` = payTo, address: `0x${string}` = usdc) {
  return {
    address,
    topics: encodeEventTopics({ abi: [transfer], eventName: "Transfer", args: { from, to } }) as Hex[],
    data: encodeAbiParameters([{ type: "uint256" }], [value]),
  };
}

function mined(input: Hex, logs = [transferLog(3_000n)], status: "success" | "reverted" = "success", to: `0x${string}` | null = UPTO_PROXY) {
  return { receipt: { status, logs }, transaction: { to, input }, usdc, permit: { payer, payTo, nonce } };
}

describe("readPermitSettlement", () => {
  it("reads the amount a settle call of our permit moved", () => {
    expect(readPermitSettlement(mined(settleCall()))).toEqual({ amount: 3_000n });
    // The ceiling itself, and a settleWithPermit call, read the same way.
    expect(readPermitSettlement(mined(settleCall({ amount: 50_000n }), [transferLog(50_000n)]))).toEqual({ amount: 50_000n });
    const withPermit = encodeFunctionData({
      abi: x402UptoPermit2ProxyABI,
      functionName: "settleWithPermit",
      args: [
        { value: 50_000n, deadline: 1n, r: `0x${"00".repeat(32)}`, s: `0x${"00".repeat(32)}`, v: 27 },
        { permitted: { token: usdc, amount: 50_000n }, nonce, deadline: 1_700_000_020n },
        7_000n,
        payer,
        { to: payTo, facilitator, validAfter: 0n },
        "0x1234",
      ],
    });
    expect(readPermitSettlement(mined(withPermit, [transferLog(7_000n)]))).toEqual({ amount: 7_000n });
  });

  it("refuses another permit, payer, payee or token, a reverted call, another contract and a transfer that does not match", () => {
    expect(readPermitSettlement(mined(settleCall({ nonce: nonce + 1n })))).toBe(false);
    expect(readPermitSettlement(mined(settleCall({ owner: payTo })))).toBe(false);
    expect(readPermitSettlement(mined(settleCall({ to: payer })))).toBe(false);
    expect(readPermitSettlement(mined(settleCall({ token: payTo })))).toBe(false);
    expect(readPermitSettlement(mined(settleCall(), [transferLog(3_000n)], "reverted"))).toBe(false);
    expect(readPermitSettlement(mined(settleCall(), [transferLog(3_000n)], "success", usdc))).toBe(false);
    expect(readPermitSettlement(mined("0xdeadbeef"))).toBe(false);
    // The Transfer must be the token's, from payer to payee, of the amount named.
    expect(readPermitSettlement(mined(settleCall(), [transferLog(2_999n)]))).toBe(false);
    expect(readPermitSettlement(mined(settleCall(), [transferLog(3_000n, payer, facilitator)]))).toBe(false);
    expect(readPermitSettlement(mined(settleCall(), [transferLog(3_000n, payer, payTo, payTo)]))).toBe(false);
    expect(readPermitSettlement(mined(settleCall(), []))).toBe(false);
    // An amount above the signed ceiling is no settlement of it.
    expect(readPermitSettlement(mined(settleCall({ amount: 60_000n }), [transferLog(60_000n)]))).toBe(false);
  });
});
