import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { PERMIT2_ADDRESS } from "@x402/evm";
import {
  bytesToHex,
  hashDomain,
  hexToBytes,
  numberToHex,
  parseAbi,
  type Address,
  type Chain,
  type Hex,
  type PublicClient,
  type TestClient,
  type Transport,
} from "viem";

const require = createRequire(import.meta.url);

/** Uniswap's Permit2 at its canonical address: the same on every chain it is deployed to, Base included. */
export const PERMIT2: Address = PERMIT2_ADDRESS;

/** The package that ships Permit2's code, and where: Permit2's own helper that places it in Foundry tests. */
const PACKAGE = "@uniswap/v4-periphery";
const HELPER = join("lib", "permit2", "test", "utils", "DeployPermit2.sol");

/**
 * The two immutables in the helper's code, as the constructor set them where that code was
 * taken from: a Permit2 that Foundry deployed on chain 31337 at a test address, not at the
 * canonical one. Each is read by exactly one PUSH32 in the code.
 */
const HELPER_CACHED_CHAIN_ID = numberToHex(31337, { size: 32 });
const HELPER_CACHED_DOMAIN_SEPARATOR: Hex = "0xd5a17abc3865df5c1400c0299bd4ce2eefc8114aec5f9d3dded1745783e57b98";

const PUSH1 = 0x60;
const PUSH32 = 0x7f;

export const permit2Abi = parseAbi(["function DOMAIN_SEPARATOR() view returns (bytes32)"]);

/**
 * Permit2's runtime code (solc 0.8.17, via-IR, Permit2's published build) as
 * `@uniswap/v4-periphery` ships it inside Permit2's test helper `DeployPermit2.sol`: one hex
 * literal that the helper etches at the canonical address.
 */
export function readPermit2HelperCode(): Hex {
  let packageDirectory: string;
  try {
    packageDirectory = dirname(require.resolve(`${PACKAGE}/package.json`));
  } catch {
    throw new Error(`${PACKAGE} is not installed; run \`npm install\` (the devnet's Permit2 comes from it)`);
  }
  const source = readFileSync(join(packageDirectory, HELPER), "utf8");
  const literals = [...source.matchAll(/hex"([0-9a-fA-F]+)"/g)];
  // One literal and no other: if a release changes the helper, fail here rather than place something else.
  if (literals.length !== 1 || !literals[0]?.[1]) throw new Error(`${PACKAGE}/${HELPER} no longer holds exactly one bytecode literal`);
  return `0x${literals[0][1].toLowerCase()}`;
}

/**
 * Permit2's runtime code with its immutables as its constructor would have set them, had it
 * been deployed at the canonical address on `chainId`.
 *
 * Why not the helper's code as it is: Permit2's constructor caches the chain id and the EIP-712
 * domain separator, which hashes the chain id and the contract's own address.
 * `DOMAIN_SEPARATOR()` returns the cached separator while `block.chainid` equals the cached
 * chain id. The helper's code cached chain 31337 with another address, so on chain 31337 at the
 * canonical address it would answer the wrong separator and no signature made for Permit2 (as
 * x402 makes them, for the canonical address) would verify. For the same reason, deploying
 * Permit2 anywhere and copying its runtime code would be wrong. So the two PUSH32 operands that
 * carry the immutables are rewritten, found by walking the code opcode by opcode (never inside
 * another instruction's data) and required to appear exactly once each.
 */
export function permit2RuntimeCode(chainId: number): Hex {
  const code = hexToBytes(readPermit2HelperCode());
  const cached = new Map<Hex, Hex>([
    [HELPER_CACHED_CHAIN_ID, numberToHex(chainId, { size: 32 })],
    [HELPER_CACHED_DOMAIN_SEPARATOR, permit2DomainSeparator(chainId)],
  ]);
  const found = new Map<Hex, number[]>([...cached.keys()].map((value) => [value, []]));
  for (const { offset, operand } of push32Operands(code)) found.get(operand)?.push(offset);
  for (const [value, offsets] of found) {
    if (offsets.length !== 1) throw new Error(`${PACKAGE}'s Permit2 code holds ${value} ${offsets.length} times, not once: its immutables moved`);
  }
  for (const [value, [offset]] of found) code.set(hexToBytes(cached.get(value) as Hex), offset as number);
  return bytesToHex(code);
}

/** Every PUSH32's operand and where it starts, up to the compiler's metadata at the end. */
function push32Operands(code: Uint8Array): { offset: number; operand: Hex }[] {
  // solc ends the code with CBOR metadata whose length is in the last two bytes.
  const metadataLength = code.length >= 2 ? ((code[code.length - 2] ?? 0) << 8) + (code[code.length - 1] ?? 0) : 0;
  const end = code.length - metadataLength - 2;
  const operands: { offset: number; operand: Hex }[] = [];
  for (let at = 0; at < end;) {
    const opcode = code[at] ?? 0;
    const size = opcode >= PUSH1 && opcode <= PUSH32 ? opcode - PUSH1 + 1 : 0;
    if (opcode === PUSH32) operands.push({ offset: at + 1, operand: bytesToHex(code.subarray(at + 1, at + 33)) });
    at += 1 + size;
  }
  return operands;
}

/**
 * Places Permit2 at its canonical address with `anvil_setCode`, then checks that its EIP-712
 * domain is this chain's: what every x402 Permit2 signature is made for.
 */
export async function installPermit2(publicClient: PublicClient<Transport, Chain>, testClient: TestClient<"anvil", Transport, Chain>): Promise<void> {
  const chainId = publicClient.chain.id;
  await testClient.setCode({ address: PERMIT2, bytecode: permit2RuntimeCode(chainId) });
  const separator = await publicClient.readContract({ address: PERMIT2, abi: permit2Abi, functionName: "DOMAIN_SEPARATOR" });
  const expected = permit2DomainSeparator(chainId);
  if (separator !== expected) throw new Error(`Permit2's domain separator is ${separator}, not ${expected} for chain ${chainId}`);
}

/** The EIP-712 domain separator of Permit2 at its canonical address on `chainId`. */
export function permit2DomainSeparator(chainId: number): Hex {
  return hashDomain({
    domain: { name: "Permit2", chainId: BigInt(chainId), verifyingContract: PERMIT2 },
    types: {
      EIP712Domain: [
        { name: "name", type: "string" },
        { name: "chainId", type: "uint256" },
        { name: "verifyingContract", type: "address" },
      ],
    },
  });
}
