/**
 * Sign-In with Ethereum checks: a message signed by its wallet for this site, chain and nonce
 * passes; each thing an attacker could change or reuse is refused.
 */
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { createSiweMessage, type SiweMessage } from "viem/siwe";
import { describe, expect, it } from "vitest";
import { AppError } from "../errors";
import { verifySiweSignIn, type SiweExpectations } from "./verify-siwe";

const wallet = privateKeyToAccount(generatePrivateKey());
const stranger = privateKeyToAccount(generatePrivateKey());
const NOW = Date.UTC(2026, 0, 31, 12);
const NONCE = "k3Rn9xQp2Lw8Zt4V";
const expected: SiweExpectations = { domain: "127.0.0.1:3000", origin: "http://127.0.0.1:3000", chainId: 31337, nonce: NONCE, now: NOW };

function message(overrides: Partial<SiweMessage> = {}): string {
  return createSiweMessage({
    domain: "127.0.0.1:3000",
    address: wallet.address,
    statement: "Sign in to see your payments.",
    uri: "http://127.0.0.1:3000",
    version: "1",
    chainId: 31337,
    nonce: NONCE,
    issuedAt: new Date(NOW - 5_000),
    expirationTime: new Date(NOW + 5 * 60_000),
    ...overrides,
  });
}

async function signed(overrides: Partial<SiweMessage> = {}, signer = wallet) {
  const text = message(overrides);
  return { message: text, signature: await signer.signMessage({ message: text }) };
}

async function refusal(promise: Promise<unknown>): Promise<string> {
  const error = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  if (!AppError.isInstance(error)) throw new Error(`expected an AppError, got ${String(error)}`);
  expect(error.status).toBe(401);
  expect(error.headers["WWW-Authenticate"]).toMatch(/^SIWE/);
  return error.safeMessage;
}

describe("verifySiweSignIn", () => {
  it("accepts a fresh message for this site, chain and nonce, signed by its wallet", async () => {
    await expect(verifySiweSignIn(await signed(), expected)).resolves.toEqual({ address: wallet.address, chainId: 31337, nonce: NONCE });
  });

  it("refuses a message for another domain", async () => {
    expect(await refusal(verifySiweSignIn(await signed({ domain: "evil.example" }), expected))).toMatch(/another site/);
  });

  it("refuses a message whose URI is on another origin", async () => {
    expect(await refusal(verifySiweSignIn(await signed({ uri: "https://evil.example/login" }), expected))).toMatch(/another site/);
  });

  it("refuses a nonce other than the one this browser was given, and any nonce when it was given none", async () => {
    expect(await refusal(verifySiweSignIn(await signed({ nonce: "aaaaaaaaaaaaaaaa" }), expected))).toMatch(/nonce/);
    expect(await refusal(verifySiweSignIn(await signed(), { ...expected, nonce: undefined }))).toMatch(/nonce/);
  });

  it("refuses a message for another chain", async () => {
    expect(await refusal(verifySiweSignIn(await signed({ chainId: 8453 }), expected))).toMatch(/chain 31337/);
  });

  it("refuses a signature by another wallet, and a signature of another message", async () => {
    expect(await refusal(verifySiweSignIn(await signed({}, stranger), expected))).toMatch(/signature/);
    const other = await signed({ statement: "Something else." });
    expect(await refusal(verifySiweSignIn({ message: message(), signature: other.signature }, expected))).toMatch(/signature/);
    expect(await refusal(verifySiweSignIn({ message: message(), signature: "0x1234" }, expected))).toMatch(/signature/);
  });

  it("refuses an expired message, one not yet valid, one issued too long ago and one dated in the future", async () => {
    await refusal(verifySiweSignIn(await signed({ expirationTime: new Date(NOW - 1) }), expected));
    await refusal(verifySiweSignIn(await signed({ notBefore: new Date(NOW + 60_000) }), expected));
    expect(await refusal(verifySiweSignIn(await signed({ issuedAt: new Date(NOW - 11 * 60_000), expirationTime: undefined }), expected))).toMatch(/too old/);
    expect(await refusal(verifySiweSignIn(await signed({ issuedAt: new Date(NOW + 5 * 60_000) }), expected))).toMatch(/future/);
  });

  it("refuses text that is not a sign-in message", async () => {
    const text = "Please sign this to log in";
    expect(await refusal(verifySiweSignIn({ message: text, signature: await wallet.signMessage({ message: text }) }, expected))).toMatch(/not a complete/);
  });
});
