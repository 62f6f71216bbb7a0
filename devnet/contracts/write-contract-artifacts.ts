/**
 * `npm run devnet:contracts`: compiles the devnet's contracts (the `upto` proxy, the
 * `batch-settlement` contract and its ERC-3009 deposit collector) and rewrites their committed
 * artifacts. Run it after editing a .sol file here; the artifact tests fail until they match.
 */
import { writeFileSync } from "node:fs";
import { compileContract } from "./compile-contract";
import { contractArtifactPath, DEVNET_CONTRACTS, type DevnetContract } from "./contract-artifacts";

for (const contract of Object.keys(DEVNET_CONTRACTS) as DevnetContract[]) {
  const artifact = compileContract(contract);
  writeFileSync(contractArtifactPath(contract), `${JSON.stringify(artifact, null, 2)}\n`);
  console.log(`wrote ${contractArtifactPath(contract)} (${artifact.compiler}, ${(artifact.runtimeBytecode.length - 2) / 2} bytes of runtime code)`);
}
