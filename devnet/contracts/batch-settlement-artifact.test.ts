import { readFileSync } from "node:fs";
import { claimBatchTypes, refundTypes, voucherTypes } from "@x402/evm";
import { describe, expect, it } from "vitest";
import { abiEntryLabel, canonicalAbi } from "./canonical-abi";
import { compileContract } from "./compile-contract";
import { loadContractArtifact, readContractArtifact } from "./contract-artifacts";
import { packageBatchSettlementAbi } from "./package-batch-settlement-abi";

/** solc adds `internalType` (the Solidity struct names) to every parameter; the package's ABI has none. */
function withoutInternalTypes(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutInternalTypes);
  if (value === null || typeof value !== "object") return value;
  return Object.fromEntries(Object.entries(value).flatMap(([key, inner]) => (key === "internalType" ? [] : [[key, withoutInternalTypes(inner)]])));
}

type Field = { readonly name: string; readonly type: string };
const typeString = (name: string, fields: readonly Field[]) => `${name}(${fields.map((field) => `${field.type} ${field.name}`).join(",")})`;

describe("the devnet's batch-settlement contracts", () => {
  it("have the committed artifacts of their sources: a fresh compile gives the same bytes (else run `npm run devnet:contracts`)", { timeout: 120_000 }, () => {
    expect(compileContract("batchSettlement")).toEqual(readContractArtifact("batchSettlement"));
    expect(compileContract("erc3009DepositCollector")).toEqual(readContractArtifact("erc3009DepositCollector"));
  });

  it("x402BatchSettlement has every function and event of the ABI @x402/evm calls it with, by name, argument names and types", async () => {
    const packageAbi = await packageBatchSettlementAbi();
    const ours = new Map(
      canonicalAbi(withoutInternalTypes(loadContractArtifact("batchSettlement").abi) as unknown[]).map((entry) => [abiEntryLabel(entry), entry]),
    );
    const expected = canonicalAbi(packageAbi);
    expect(expected.length).toBeGreaterThanOrEqual(19);
    for (const entry of expected) expect(ours.get(abiEntryLabel(entry)), abiEntryLabel(entry)).toEqual(entry);
  });

  it("hashes the EIP-712 types @x402/evm signs: Voucher, Refund, ClaimBatch with its ClaimEntry", () => {
    const source = readFileSync(new URL("./x402BatchSettlement.sol", import.meta.url), "utf8");
    const claimEntry = typeString("ClaimEntry", claimBatchTypes.ClaimEntry);
    expect(source).toContain(`keccak256("${typeString("Voucher", voucherTypes.Voucher)}")`);
    expect(source).toContain(`keccak256("${typeString("Refund", refundTypes.Refund)}")`);
    expect(source).toContain(`keccak256("${claimEntry}")`);
    // A referenced struct's type string follows the referring one's, as EIP-712 encodes a type.
    expect(source).toContain(`"${typeString("ClaimBatch", claimBatchTypes.ClaimBatch)}${claimEntry}"`);
  });
});
