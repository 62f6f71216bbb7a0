import { describe, expect, it } from "vitest";
import { hexToBytes, numberToHex, type Hex } from "viem";
import { permit2DomainSeparator, permit2RuntimeCode, readPermit2HelperCode } from "./install-permit2";

/** Every offset where `word` stands as a PUSH32 operand (just after an 0x7f byte). */
function push32Offsets(code: Uint8Array, word: Hex): number[] {
  const bytes = hexToBytes(word);
  const offsets: number[] = [];
  for (let at = 1; at + 32 <= code.length; at++) {
    if (code[at - 1] === 0x7f && bytes.every((byte, index) => code[at + index] === byte)) offsets.push(at);
  }
  return offsets;
}

describe("Permit2's code for the local chain", () => {
  it("is the package's Permit2 with its two immutables, and nothing else, set for the canonical address on the chain", () => {
    const helper = hexToBytes(readPermit2HelperCode());
    for (const chainId of [31337, 8453, 1]) {
      const code = hexToBytes(permit2RuntimeCode(chainId));
      expect(code.length).toBe(helper.length);
      const separatorAt = push32Offsets(code, permit2DomainSeparator(chainId));
      const chainIdAt = push32Offsets(code, numberToHex(chainId, { size: 32 }));
      expect([separatorAt.length, chainIdAt.length], `chain ${chainId}`).toEqual([1, 1]);
      const windows = [...separatorAt, ...chainIdAt].map((start) => [start, start + 32] as const);
      const changed = Array.from(helper).flatMap((byte, index) => (byte === code[index] ? [] : [index]));
      expect(changed.length).toBeGreaterThan(0);
      expect(
        changed.filter((index) => !windows.some(([start, end]) => index >= start && index < end)),
        `chain ${chainId}`,
      ).toEqual([]);
    }
  });

  it("names Permit2's mainnet domain for chain 1 (a value anyone can check against Ethereum)", () => {
    expect(permit2DomainSeparator(1)).toBe("0x866a5aba21966af95d6c7ab78eb2b2fc913915c28be3b9aa07cc04ff903e3f28");
  });
});
