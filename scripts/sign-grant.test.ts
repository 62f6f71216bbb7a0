import { recoverTypedDataAddress } from "viem";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { describe, expect, it } from "vitest";
import { grantTypedData, readGrantTypedData, viemGrantTypedData } from "../lib/grants/grant-permit";
import { signedGrantBody } from "./sign-grant";

const permit = {
  chainId: 31337,
  token: "0x036CbD53842c5426634e7929541eC2318f3dCF7e" as const,
  amount: 3_000n,
  expiration: 1_800_000_000n,
  nonce: 4n,
  spender: "0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC" as const,
  sigDeadline: 1_799_000_000n,
};

describe("npm run sign-grant", () => {
  it("signs a prepare answer, or bare typed data, so that the signer recovers from the typed data as sent", async () => {
    const account = privateKeyToAccount(generatePrivateKey());
    const typedData = grantTypedData(permit);
    for (const input of [JSON.stringify({ typedData, expiresAt: "2027-01-15T08:00:00.000Z" }), JSON.stringify(typedData)]) {
      const body = await signedGrantBody(input, account);
      expect(body.typedData).toEqual(typedData);
      const read = readGrantTypedData(body.typedData);
      expect(read?.permit).toEqual(permit);
      expect(await recoverTypedDataAddress({ ...viemGrantTypedData(read!.permit), signature: body.signature })).toBe(account.address);
    }
  });

  it("refuses what is not a grant's typed data", async () => {
    const account = privateKeyToAccount(generatePrivateKey());
    const other = { ...grantTypedData(permit), primaryType: "PermitTransferFrom" };
    await expect(signedGrantBody(JSON.stringify(other), account)).rejects.toThrow("not a grant's typed data");
  });
});
