import { PERMIT2_ADDRESS } from "@x402/evm";
import { getAddress, hashTypedData } from "viem";
import { describe, expect, it } from "vitest";
import { grantTypedData, PERMIT2, readGrantTypedData, viemGrantTypedData, type GrantPermit } from "./grant-permit";

const permit: GrantPermit = {
  chainId: 84532,
  token: "0x036CbD53842c5426634e7929541eC2318f3dCF7e",
  amount: 50_000n,
  expiration: 1_800_000_000n,
  nonce: 2n,
  spender: "0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC",
  sigDeadline: 1_799_999_000n,
};

describe("a grant's typed data", () => {
  it("names the canonical Permit2, as @x402/evm does", () => {
    expect(PERMIT2).toBe(getAddress(PERMIT2_ADDRESS));
  });

  it("reads back what it wrote, and hashes the same as JSON (strings) and as viem's form (bigints)", () => {
    const json = JSON.parse(JSON.stringify(grantTypedData(permit))) as unknown;
    expect(readGrantTypedData(json)).toEqual({ permit, verifyingContract: PERMIT2 });
    expect(hashTypedData(json as Parameters<typeof hashTypedData>[0])).toBe(hashTypedData(viemGrantTypedData(permit)));
  });

  it("refuses another primary type, an extra field, a changed type list or an amount beyond uint160", () => {
    const typedData = grantTypedData(permit);
    expect(readGrantTypedData({ ...typedData, primaryType: "PermitTransferFrom" })).toBeUndefined();
    expect(readGrantTypedData({ ...typedData, message: { ...typedData.message, extra: 1 } })).toBeUndefined();
    expect(readGrantTypedData({ ...typedData, types: { ...typedData.types, PermitSingle: typedData.types.PermitSingle.slice(1) } })).toBeUndefined();
    expect(
      readGrantTypedData({ ...typedData, message: { ...typedData.message, details: { ...typedData.message.details, amount: "1".repeat(50) } } }),
    ).toBeUndefined();
  });
});
