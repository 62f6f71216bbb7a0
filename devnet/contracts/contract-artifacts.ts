import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { Abi, Hex } from "viem";
import { z } from "zod";

/**
 * The devnet's own contracts: each a Solidity source here, compiled by `npm run devnet:contracts`
 * into a committed artifact the devnet reads at start (the compiler is slow to load).
 */
export const DEVNET_CONTRACTS = {
  uptoProxy: { source: "x402UptoPermit2Proxy.sol", contractName: "x402UptoPermit2Proxy", artifactFile: "x402UptoPermit2Proxy.artifact.json" },
  batchSettlement: { source: "x402BatchSettlement.sol", contractName: "x402BatchSettlement", artifactFile: "x402BatchSettlement.artifact.json" },
  erc3009DepositCollector: {
    source: "ERC3009DepositCollector.sol",
    contractName: "ERC3009DepositCollector",
    artifactFile: "ERC3009DepositCollector.artifact.json",
  },
} as const;
export type DevnetContract = keyof typeof DEVNET_CONTRACTS;

export const ContractArtifact = z.object({
  contractName: z.string().min(1),
  /** The compiler's full version string, e.g. "solc 0.8.37+commit.….Emscripten.clang". */
  compiler: z.string().startsWith("solc 0.8."),
  settings: z.record(z.string(), z.unknown()),
  /** keccak256 of the source it was compiled from, to name a stale artifact plainly. */
  sourceKeccak256: z.string().regex(/^0x[0-9a-f]{64}$/),
  abi: z.array(z.record(z.string(), z.unknown())),
  runtimeBytecode: z.string().regex(/^0x[0-9a-f]+$/),
});
export type ContractArtifact = z.infer<typeof ContractArtifact>;

export function contractArtifactPath(contract: DevnetContract): string {
  return join(import.meta.dirname, DEVNET_CONTRACTS[contract].artifactFile);
}

export function readContractArtifact(contract: DevnetContract): ContractArtifact {
  const artifact = ContractArtifact.parse(JSON.parse(readFileSync(contractArtifactPath(contract), "utf8")));
  if (artifact.contractName !== DEVNET_CONTRACTS[contract].contractName) throw new Error(`${contractArtifactPath(contract)} holds ${artifact.contractName}`);
  return artifact;
}

/** A committed build: its ABI and the runtime code the devnet places with `anvil_setCode`. */
export function loadContractArtifact(contract: DevnetContract): { abi: Abi; runtimeBytecode: Hex } {
  const artifact = readContractArtifact(contract);
  return { abi: artifact.abi as unknown as Abi, runtimeBytecode: artifact.runtimeBytecode as Hex };
}
