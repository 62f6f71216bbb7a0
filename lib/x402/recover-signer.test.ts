import { keccak256, recoverAddress, toHex, type Hex } from "viem";
import { generatePrivateKey, privateKeyToAccount, sign } from "viem/accounts";
import { describe, expect, it } from "vitest";
import { recoverSigner } from "./recover-signer";

const N = 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n;

describe("recoverSigner", () => {
  it("recovers the signer of 40 random digests exactly as viem does", async () => {
    for (let index = 0; index < 40; index += 1) {
      const privateKey = generatePrivateKey();
      const digest = keccak256(toHex(`message ${index}`));
      const signature = await sign({ hash: digest, privateKey, to: "hex" });
      const expected = privateKeyToAccount(privateKey).address;
      expect(await recoverSigner(digest, signature)).toBe(expected);
      expect(await recoverAddress({ hash: digest, signature })).toBe(expected);
    }
  });

  it("gives viem's answer for a high-s signature and for a v of 0 or 1", async () => {
    const privateKey = generatePrivateKey();
    const digest = keccak256(toHex("high s"));
    const signature = await sign({ hash: digest, privateKey, to: "object" });
    const s = BigInt(signature.s);
    const flipped = `0x${signature.r.slice(2)}${(N - s).toString(16).padStart(64, "0")}${(signature.yParity === 0 ? 28 : 27).toString(16)}` as Hex;
    expect(await recoverSigner(digest, flipped)).toBe(await recoverAddress({ hash: digest, signature: flipped }));
    const zeroBased = `0x${signature.r.slice(2)}${signature.s.slice(2)}0${signature.yParity}` as Hex;
    expect(await recoverSigner(digest, zeroBased)).toBe(privateKeyToAccount(privateKey).address);
  });
});
