import { readFileSync } from "node:fs";
import { uptoPermit2WitnessTypes, x402UptoPermit2ProxyABI } from "@x402/evm";
import { describe, expect, it } from "vitest";
import { canonicalAbi } from "./canonical-abi";
import { compileContract } from "./compile-contract";
import { loadContractArtifact, readContractArtifact } from "./contract-artifacts";

const typeString = (name: keyof typeof uptoPermit2WitnessTypes) =>
  `${name}(${uptoPermit2WitnessTypes[name].map((field) => `${field.type} ${field.name}`).join(",")})`;

describe("the devnet's x402UptoPermit2Proxy", () => {
  it("has the committed artifact of its source: a fresh compile gives the same bytes (else run `npm run devnet:contracts`)", { timeout: 60_000 }, () => {
    expect(compileContract("uptoProxy")).toEqual(readContractArtifact("uptoProxy"));
  });

  it("has exactly the ABI @x402/evm's upto facilitator calls: every function, event and error, by name and type", () => {
    expect(canonicalAbi(loadContractArtifact("uptoProxy").abi)).toEqual(canonicalAbi(x402UptoPermit2ProxyABI));
  });

  it("signs over the witness type @x402/evm's upto client signs", () => {
    const source = readFileSync(new URL("./x402UptoPermit2Proxy.sol", import.meta.url), "utf8");
    // Permit2 appends this to its `PermitWitnessTransferFrom(...,` stub; the referenced types come in alphabetical order.
    const witnessTypeString = `Witness witness)${typeString("TokenPermissions")}${typeString("Witness")}`;
    expect(uptoPermit2WitnessTypes.PermitWitnessTransferFrom.at(-1)).toEqual({ name: "witness", type: "Witness" });
    expect(source).toContain(`"${witnessTypeString}"`);
    expect(source).toContain(`keccak256("${typeString("Witness")}")`);
  });
});
