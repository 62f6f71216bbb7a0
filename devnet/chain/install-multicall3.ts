import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import type { Chain, Hex, PublicClient, TestClient, Transport } from "viem";

const require = createRequire(import.meta.url);

/** Multicall3's address on Base and nearly every EVM chain (a keyless, deterministic deployment). */
export const MULTICALL3_ADDRESS = "0xcA11bde05977b3631167028862bE2a173976CA11";

/**
 * Puts Multicall3 at its canonical address, as on Base. x402's facilitator batches its
 * diagnostic reads through it when a payment's simulation fails; without it every failure is
 * reported as a generic "simulation failed" instead of, say, "insufficient balance" or "nonce
 * already used", which the app shows to people.
 *
 * The creation code comes from the copy viem keeps for its own deployless calls. viem does not
 * export it, so we read it from viem's files; if a viem upgrade moves it, the devnet still works
 * and only the failure reasons get less specific. Returns whether Multicall3 was installed.
 */
export async function installMulticall3(publicClient: PublicClient<Transport, Chain>, testClient: TestClient<"anvil", Transport, Chain>): Promise<boolean> {
  const creationCode = readViemMulticall3CreationCode();
  if (!creationCode) return false;
  // Running the creation code in a call returns the runtime code without deploying anything.
  const { data: runtimeCode } = await publicClient.call({ data: creationCode });
  if (!runtimeCode || runtimeCode === "0x") return false;
  await testClient.setCode({ address: MULTICALL3_ADDRESS, bytecode: runtimeCode });
  return true;
}

function readViemMulticall3CreationCode(): Hex | undefined {
  try {
    const viemDirectory = dirname(require.resolve("viem/package.json"));
    const source = readFileSync(join(viemDirectory, "_esm", "constants", "contracts.js"), "utf8");
    const match = /multicall3Bytecode\s*=\s*'(0x[0-9a-fA-F]+)'/.exec(source);
    return match?.[1] as Hex | undefined;
  } catch {
    return undefined;
  }
}
