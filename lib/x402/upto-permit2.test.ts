/**
 * The upto permit as the official client builds it: for the same requirement, @x402/evm's
 * UptoEvmScheme signs the same typed data (domain, types, every message field but the nonce and
 * the time window, which it draws itself) and sends the same payload shape; a signature over
 * ours verifies against theirs once those three fields are set alike.
 */
import { UptoEvmScheme } from "@x402/evm/upto/client";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { verifyTypedData } from "viem";
import { describe, expect, it } from "vitest";
import { offlineNetwork } from "../../tests/support/offline-fixtures";
import { uptoRequirement } from "../../tests/support/fake-metered-service";
import { selectPayableRequirement } from "./payment-requirements";
import {
  buildUptoPaymentPayload,
  buildUptoTypedData,
  permit2NonceBit,
  permit2NonceOf,
  PERMIT2,
  recoverUptoSigner,
  toViemUptoTypedData,
  UPTO_PROXY,
  UptoPermitTypedData,
} from "./upto-permit2";

const agent = privateKeyToAccount(generatePrivateKey());
const quoteNonce = `0x${"3c".repeat(32)}` as const;

function uptoOption() {
  const selection = selectPayableRequirement({ x402Version: 2, accepts: [uptoRequirement(offlineNetwork)] }, offlineNetwork, { schemes: ["upto"] });
  if (!selection.ok) throw new Error(selection.reason);
  return selection.option;
}

/** What the official client signs and sends for the requirement. */
async function officialPermit() {
  let signed: Record<string, unknown> | undefined;
  const signer = {
    address: agent.address,
    signTypedData: async (typedData: Record<string, unknown>) => {
      signed = typedData;
      return agent.signTypedData(typedData as never);
    },
  };
  const client = new UptoEvmScheme(signer as never);
  const result = await client.createPaymentPayload(2, uptoRequirement(offlineNetwork) as never);
  if (!signed) throw new Error("the official client signed nothing");
  return { signed, payload: result.payload as { signature: `0x${string}`; permit2Authorization: Record<string, unknown> } };
}

describe("upto permit typed data", () => {
  it("is the official client's typed data for the same requirement, apart from nonce and time window", async () => {
    const option = uptoOption();
    const ours = buildUptoTypedData(option, offlineNetwork.chainId, { validAfter: 1_700_000_000n, deadline: 1_700_000_020n, nonce: quoteNonce });
    expect(UptoPermitTypedData.parse(ours)).toEqual(ours);
    const { signed } = await officialPermit();
    const viem = toViemUptoTypedData(ours);
    expect(viem.domain).toEqual(signed.domain);
    expect(viem.types).toEqual(signed.types);
    expect(viem.primaryType).toBe(signed.primaryType);
    const theirs = signed.message as { nonce: bigint; deadline: bigint; witness: { validAfter: bigint } };
    const blank = <T extends { nonce: bigint; deadline: bigint; witness: { validAfter: bigint } }>(message: T) => ({
      ...message,
      nonce: 0n,
      deadline: 0n,
      witness: { ...message.witness, validAfter: 0n },
    });
    expect(blank(viem.message)).toEqual(blank(theirs as typeof viem.message));
    // The fields that matter, spelled out: the ceiling, Permit2's domain, the proxy as spender.
    expect(viem.message.permitted).toEqual({ token: offlineNetwork.usdc, amount: 50_000n });
    expect(viem.domain).toEqual({ name: "Permit2", chainId: 31337, verifyingContract: PERMIT2 });
    expect(viem.message.spender).toBe(UPTO_PROXY);
  });

  it("signs to the same EIP-712 digest as the official typed data with our nonce and window", async () => {
    const option = uptoOption();
    const ours = buildUptoTypedData(option, offlineNetwork.chainId, { validAfter: 1_700_000_000n, deadline: 1_700_000_020n, nonce: quoteNonce });
    const signature = await agent.signTypedData(toViemUptoTypedData(ours));
    const { signed } = await officialPermit();
    const message = signed.message as { witness: Record<string, unknown> };
    const theirsWithOurs = { ...message, nonce: BigInt(quoteNonce), deadline: 1_700_000_020n, witness: { ...message.witness, validAfter: 1_700_000_000n } };
    expect(await verifyTypedData({ ...(signed as Record<string, unknown>), message: theirsWithOurs, address: agent.address, signature } as never)).toBe(true);
    expect(await recoverUptoSigner(ours, signature)).toBe(agent.address);
  });

  it("sends the payload the official client sends: permit2Authorization with the same fields and shapes", async () => {
    const option = uptoOption();
    const typed = buildUptoTypedData(option, offlineNetwork.chainId, { validAfter: 1_700_000_000n, deadline: 1_700_000_020n, nonce: quoteNonce });
    const ours = buildUptoPaymentPayload(option, { url: "https://metered.example/text/analyze" }, typed, agent.address, "0x12", {
      "payment-identifier": { info: { id: "x" } },
    });
    const { payload } = await officialPermit();
    const authorization = (ours.payload as { permit2Authorization: Record<string, unknown> }).permit2Authorization;
    const shape = (value: unknown): unknown =>
      value && typeof value === "object" ? Object.fromEntries(Object.entries(value).map(([key, item]) => [key, shape(item)])) : typeof value;
    expect(shape(authorization)).toEqual(shape(payload.permit2Authorization));
    const { nonce: _a, deadline: _b, witness: ourWitness, ...ourRest } = authorization as { nonce: string; deadline: string; witness: Record<string, unknown> };
    const {
      nonce: _c,
      deadline: _d,
      witness: theirWitness,
      ...theirRest
    } = payload.permit2Authorization as { nonce: string; deadline: string; witness: Record<string, unknown> };
    expect(ourRest).toEqual(theirRest);
    expect({ ...ourWitness, validAfter: "" }).toEqual({ ...theirWitness, validAfter: "" });
    // Integers as decimal strings, as the official client sends them.
    expect(authorization.nonce).toBe(BigInt(quoteNonce).toString());
    expect(ours).toMatchObject({
      x402Version: 2,
      accepted: uptoRequirement(offlineNetwork),
      resource: { url: "https://metered.example/text/analyze" },
      extensions: { "payment-identifier": { info: { id: "x" } } },
    });
  });
});

describe("Permit2 nonce from the quote nonce", () => {
  it("reads the 32-byte HMAC nonce as the uint256 Permit2 spends once", () => {
    expect(permit2NonceOf(`0x${"00".repeat(31)}ff`)).toBe(255n);
    expect(permit2NonceOf(quoteNonce)).toBe(BigInt(quoteNonce));
    expect(() => permit2NonceOf("0x1234")).toThrow(TypeError);
    // Word and bit in Permit2's bitmap: nonce >> 8 and 1 << (nonce & 0xff).
    expect(permit2NonceBit(0x1_05n)).toEqual({ word: 1n, bit: 1n << 5n });
    expect(permit2NonceBit(BigInt(quoteNonce)).word).toBe(BigInt(quoteNonce) >> 8n);
  });
});
