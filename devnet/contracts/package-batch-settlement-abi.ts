import { readdirSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { pathToFileURL } from "node:url";
import type { Abi } from "viem";

const require = createRequire(import.meta.url);

/**
 * The `x402BatchSettlement` ABI that @x402/evm's batch-settlement client, server and facilitator
 * call. The package uses it internally without exporting it, so this finds the built module that
 * declares it (tsup names its chunks by hash, and the name changes between versions) and imports
 * that module's own export: the very array the package calls the chain with. For tests only.
 */
export async function packageBatchSettlementAbi(): Promise<Abi> {
  const distribution = dirname(require.resolve("@x402/evm"));
  const esm = join(distribution, "..", "esm");
  const chunk = readdirSync(esm).find((file) => file.endsWith(".mjs") && readFileSync(join(esm, file), "utf8").includes("// src/batch-settlement/abi.ts"));
  if (!chunk) throw new Error("@x402/evm has no module declaring src/batch-settlement/abi.ts");
  const loaded = (await import(pathToFileURL(join(esm, chunk)).href)) as { batchSettlementABI?: Abi };
  if (!Array.isArray(loaded.batchSettlementABI)) throw new Error(`${chunk} exports no batchSettlementABI`);
  return loaded.batchSettlementABI;
}
