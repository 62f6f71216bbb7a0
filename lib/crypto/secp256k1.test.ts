import { keccak256, parseTransaction, recoverAddress, recoverTransactionAddress, toHex, type Hex } from "viem";
import { generatePrivateKey, privateKeyToAccount, sign } from "viem/accounts";
import { describe, expect, it } from "vitest";
import { localAccount, nativeSecp256k1, recoverSigner } from "./secp256k1";

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

describe("localAccount", () => {
  it("loads the native binding on this machine (otherwise the tests below compare viem with itself)", () => {
    expect(nativeSecp256k1()).not.toBeNull();
  });

  it("signs typed data, messages and digests with exactly viem's bytes", async () => {
    for (let index = 0; index < 20; index += 1) {
      const privateKey = generatePrivateKey();
      const ours = localAccount(privateKey);
      const viems = privateKeyToAccount(privateKey);
      expect(ours.address).toBe(viems.address);
      const typedData = {
        domain: { name: "USD Coin", version: "2", chainId: 31337, verifyingContract: "0x5FbDB2315678afecb367f032d93F642f64180aa3" },
        types: {
          Transfer: [
            { name: "to", type: "address" },
            { name: "value", type: "uint256" },
            { name: "nonce", type: "bytes32" },
          ],
        },
        primaryType: "Transfer",
        message: { to: viems.address, value: BigInt(index) * 10_000n, nonce: keccak256(toHex(index)) },
      } as const;
      expect(await ours.signTypedData(typedData)).toBe(await viems.signTypedData(typedData));
      expect(await ours.signMessage({ message: `message ${index}` })).toBe(await viems.signMessage({ message: `message ${index}` }));
      const digest = keccak256(toHex(`digest ${index}`));
      expect(await ours.sign!({ hash: digest })).toBe(await viems.sign({ hash: digest }));
    }
  });

  it("signs legacy and EIP-1559 transactions exactly as viem does, recoverable to its address", async () => {
    const privateKey = generatePrivateKey();
    const ours = localAccount(privateKey);
    const viems = privateKeyToAccount(privateKey);
    const transactions = [
      {
        type: "eip1559",
        chainId: 31337,
        nonce: 7,
        to: viems.address,
        value: 1n,
        maxFeePerGas: 2_000_000_000n,
        maxPriorityFeePerGas: 1_000_000n,
        gas: 21_000n,
        data: "0x",
      },
      { type: "legacy", chainId: 8453, nonce: 0, to: viems.address, value: 0n, gasPrice: 1_000_000_000n, gas: 60_000n, data: "0xa9059cbb" },
    ] as const;
    for (const transaction of transactions) {
      const signed = await ours.signTransaction(transaction);
      expect(signed).toBe(await viems.signTransaction(transaction));
      expect(
        await recoverTransactionAddress({ serializedTransaction: signed as Parameters<typeof recoverTransactionAddress>[0]["serializedTransaction"] }),
      ).toBe(viems.address);
      expect(parseTransaction(signed).nonce).toBe(transaction.nonce);
    }
  });
});
