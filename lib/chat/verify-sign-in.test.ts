/**
 * Request 2 of a sign-in with the user's wallet: the header is taken only for the wallet,
 * request and challenge request 1 bound it to, in time, and signed by that wallet.
 */
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { describe, expect, it } from "vitest";
import { offlineNetwork } from "../../tests/support/offline-fixtures";
import { SIWX_CHAINS, SIWX_URL, siwxInfo } from "../../tests/support/siwx-fixtures";
import { AppError } from "../errors";
import { encodeSignInWithXHeader } from "../client/sign-in-header";
import { buildSignInRequest } from "../x402/siwx-binding";
import { readSiwxChallenge } from "../x402/siwx-challenge";
import { verifySignIn } from "./verify-sign-in";

const SECRET = "unit-test-quote-secret-0123456789abcdef";
const URL_ = SIWX_URL;
const wallet = privateKeyToAccount(generatePrivateKey());
const stranger = privateKeyToAccount(generatePrivateKey());
const NOW = Date.now();

function offer(change: (info: Record<string, unknown>) => void = () => undefined) {
  const info = siwxInfo(NOW, 120_000);
  change(info);
  const challenge = readSiwxChallenge({ extensions: { "sign-in-with-x": { info, supportedChains: SIWX_CHAINS } } }, URL_, 31337, NOW)!;
  return buildSignInRequest(SECRET, wallet.address, { url: URL_, method: "GET" }, challenge);
}

async function header(signIn = offer(), signer = wallet, url = URL_) {
  return encodeSignInWithXHeader(signIn, { resource: url, method: "GET" }, wallet.address, await signer.signMessage({ message: signIn.message }));
}

function verify(value: string, now = NOW, walletAddress: `0x${string}` | null = wallet.address) {
  return verifySignIn({
    header: value,
    walletAddress: walletAddress ?? undefined,
    network: offlineNetwork,
    quoteSecret: SECRET,
    now,
    serviceName: () => "Devnet Archive",
  });
}

async function codeOf(promise: Promise<unknown>): Promise<string | undefined> {
  try {
    await promise;
    return undefined;
  } catch (error) {
    return AppError.isInstance(error) ? error.code : String(error);
  }
}

describe("verifySignIn", () => {
  it("takes the wallet's signature of the offered message, and gives the spec's header for the service", async () => {
    const signedIn = await verify(await header());
    expect(signedIn).toMatchObject({ service: "Devnet Archive", url: URL_, method: "GET", payer: wallet.address, nonce: "a1b2c3d4e5f67890a1b2c3d4e5f67890" });
    const forService = JSON.parse(Buffer.from(signedIn.serviceHeader, "base64").toString("utf8")) as Record<string, unknown>;
    expect(forService).toMatchObject({ address: wallet.address, domain: "127.0.0.1:4021", chainId: "eip155:31337" });
    expect(forService).not.toHaveProperty("binding");
  });

  it("refuses another signer, another wallet in the body, and no wallet", async () => {
    expect(await codeOf(verify(await header(offer(), stranger)))).toBe("payment_required:invalid_signature");
    expect(await codeOf(verify(await header(), NOW, stranger.address))).toBe("payment_required:mismatch");
    expect(await codeOf(verify(await header(), NOW, null))).toBe("payment_required:mismatch");
  });

  it("refuses an expired challenge", async () => {
    expect(await codeOf(verify(await header(), NOW + 121_000))).toBe("payment_required:expired");
  });

  it("refuses a sign-in moved to another request, origin or challenge: the binding no longer matches", async () => {
    expect(await codeOf(verify(await header(offer(), wallet, "http://127.0.0.1:4021/archive/documents/doc-2")))).toBe("payment_required:mismatch");
    expect(await codeOf(verify(await header(offer(), wallet, "http://127.0.0.1:4022/archive/documents/doc-1")))).toBe("payment_required:mismatch");
    const signIn = offer();
    const changed = { ...signIn, challenge: { ...signIn.challenge, nonce: "ffffffffffffffffffffffffffffffff" } };
    expect(await codeOf(verify(await header(changed)))).toBe("payment_required:mismatch");
    expect(await codeOf(verify("not base64!"))).toBe("payment_required:invalid_signature");
  });
});
