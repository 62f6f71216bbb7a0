import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { Abi, Hex } from "viem";
import { z } from "zod";

export const UPTO_PROXY_SOURCE = "x402UptoPermit2Proxy.sol";
export const UPTO_PROXY_CONTRACT = "x402UptoPermit2Proxy";
/** Committed next to the source; `npm run devnet:contracts` rewrites it. */
export const UPTO_PROXY_ARTIFACT_FILE = "x402UptoPermit2Proxy.artifact.json";

export const UptoProxyArtifact = z.object({
  contractName: z.literal(UPTO_PROXY_CONTRACT),
  /** The compiler's full version string, e.g. "solc 0.8.37+commit.….Emscripten.clang". */
  compiler: z.string().startsWith("solc 0.8."),
  settings: z.record(z.string(), z.unknown()),
  /** keccak256 of the source it was compiled from, to name a stale artifact plainly. */
  sourceKeccak256: z.string().regex(/^0x[0-9a-f]{64}$/),
  abi: z.array(z.record(z.string(), z.unknown())),
  runtimeBytecode: z.string().regex(/^0x[0-9a-f]+$/),
});
export type UptoProxyArtifact = z.infer<typeof UptoProxyArtifact>;

export function uptoProxyArtifactPath(): string {
  return join(import.meta.dirname, UPTO_PROXY_ARTIFACT_FILE);
}

/** The committed build of the `upto` proxy: its ABI and the runtime code the devnet places. */
export function loadUptoProxyArtifact(): { abi: Abi; runtimeBytecode: Hex } {
  const artifact = UptoProxyArtifact.parse(JSON.parse(readFileSync(uptoProxyArtifactPath(), "utf8")));
  return { abi: artifact.abi as unknown as Abi, runtimeBytecode: artifact.runtimeBytecode as Hex };
}
