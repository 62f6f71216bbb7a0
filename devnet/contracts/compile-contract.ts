import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import { keccak256, stringToHex } from "viem";
import { z } from "zod";
import { ContractArtifact, DEVNET_CONTRACTS, type DevnetContract } from "./contract-artifacts";

const require = createRequire(import.meta.url);

/**
 * The settings every committed artifact is built with. Cancun for transient storage (the
 * reentrancy flag), which anvil and Base both have.
 */
export const DEVNET_COMPILER_SETTINGS = {
  optimizer: { enabled: true, runs: 10_000 },
  evmVersion: "cancun",
} as const;

const SolcOutput = z.object({
  errors: z.array(z.object({ severity: z.string(), formattedMessage: z.string() })).optional(),
  contracts: z
    .record(
      z.string(),
      z.record(
        z.string(),
        z.object({
          abi: z.array(z.record(z.string(), z.unknown())),
          evm: z.object({
            deployedBytecode: z.object({ object: z.string().regex(/^[0-9a-f]+$/), immutableReferences: z.record(z.string(), z.unknown()) }),
          }),
        }),
      ),
    )
    .optional(),
});

type Solc = { version(): string; compile(input: string): string };

/**
 * Compiles one of the devnet's contracts (devnet/contracts/*.sol) with the `solc` npm package (the
 * compiler itself, as WebAssembly, inside the package: nothing is downloaded) and returns what the
 * devnet places on chain. Slow (a few seconds: the compiler loads first), so the devnet itself
 * reads the committed artifact; `npm run devnet:contracts` rewrites it and a test compares the two.
 * Each source compiles alone, so its bytes (and the metadata hash they end with) depend on it only.
 */
export function compileContract(contract: DevnetContract): ContractArtifact {
  const { source: sourceFile, contractName } = DEVNET_CONTRACTS[contract];
  const source = readFileSync(join(import.meta.dirname, sourceFile), "utf8");
  const solc = require("solc") as Solc;
  const input = {
    language: "Solidity",
    sources: { [sourceFile]: { content: source } },
    settings: {
      ...DEVNET_COMPILER_SETTINGS,
      outputSelection: { [sourceFile]: { [contractName]: ["abi", "evm.deployedBytecode.object", "evm.deployedBytecode.immutableReferences"] } },
    },
  };
  const output = SolcOutput.parse(JSON.parse(solc.compile(JSON.stringify(input))));
  const errors = (output.errors ?? []).filter((entry) => entry.severity === "error");
  if (errors.length > 0) throw new Error(`solc refused ${sourceFile}:\n${errors.map((entry) => entry.formattedMessage).join("\n")}`);
  const compiled = output.contracts?.[sourceFile]?.[contractName];
  if (!compiled) throw new Error(`solc produced no ${contractName}`);
  // Runtime code with immutables would carry values set by a constructor that never runs when
  // the code is placed with anvil_setCode; the contracts are written to have none.
  if (Object.keys(compiled.evm.deployedBytecode.immutableReferences).length > 0) throw new Error(`${contractName} must have no immutables`);
  return ContractArtifact.parse({
    contractName,
    compiler: `solc ${solc.version()}`,
    settings: DEVNET_COMPILER_SETTINGS,
    sourceKeccak256: keccak256(stringToHex(source)),
    abi: compiled.abi,
    runtimeBytecode: `0x${compiled.evm.deployedBytecode.object}`,
  });
}
