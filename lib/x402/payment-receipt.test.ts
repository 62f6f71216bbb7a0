import { encodePaymentResponseHeader } from "@x402/core/http";
import { createReceiptJWS, signReceiptEIP712, type JWSSigner, type SignTypedDataFn } from "@x402/extensions/offer-receipt";
import { keccak256, toHex } from "viem";
import { privateKeyToAccount, sign, type PrivateKeyAccount } from "viem/accounts";
import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { checkSettlementReceipt, verifyPaymentReceipt, type PaidTerms } from "./payment-receipt";

const payee = privateKeyToAccount(keccak256(toHex("receipt test payee")));
const stranger = privateKeyToAccount(keccak256(toHex("receipt test stranger")));
const NOW = Date.UTC(2026, 0, 1, 12, 0, 0);
const TX = `0x${"ab".repeat(32)}` as const;
const PAID: PaidTerms = {
  resourceUrls: ["http://127.0.0.1:4021/weather?city=Lisbon"],
  network: "eip155:31337",
  payer: "0x52908400098527886E0F7030069857D2E4169EE7",
  payTo: payee.address,
  txHash: TX,
  paidFrom: Math.floor(NOW / 1000) - 60,
  now: NOW,
};

const signerOf =
  (account: PrivateKeyAccount): SignTypedDataFn =>
  (parameters) =>
    account.signTypedData(parameters as never);

/** A receipt as the extension's server signs one (createReceiptEIP712), at the test's clock. */
async function eip712Receipt(account = payee, overrides: Partial<{ resourceUrl: string; network: string; payer: string; transaction: string }> = {}) {
  const payload = {
    version: 1,
    resourceUrl: PAID.resourceUrls[0]!,
    network: PAID.network,
    payer: PAID.payer,
    transaction: TX,
    issuedAt: Math.floor(NOW / 1000),
    ...overrides,
  };
  return { format: "eip712" as const, payload, signature: await signReceiptEIP712(payload, signerOf(account)) };
}

/** An ES256K JWS signer whose key is named by a did:jwk, as the verifier reads it. */
function jwsSigner(account: PrivateKeyAccount, privateKey: `0x${string}`): JWSSigner {
  const publicKey = account.publicKey.slice(4);
  const jwk = {
    kty: "EC",
    crv: "secp256k1",
    x: Buffer.from(publicKey.slice(0, 64), "hex").toString("base64url"),
    y: Buffer.from(publicKey.slice(64), "hex").toString("base64url"),
  };
  return {
    kid: `did:jwk:${Buffer.from(JSON.stringify(jwk)).toString("base64url")}#0`,
    format: "jws",
    algorithm: "ES256K",
    async sign(bytes) {
      const hash = `0x${createHash("sha256").update(bytes).digest("hex")}` as const;
      const signature = await sign({ hash, privateKey, to: "bytes" });
      return Buffer.from(signature.slice(0, 64)).toString("base64url");
    },
  };
}

describe("verifyPaymentReceipt", () => {
  it("verifies a receipt signed by the payee for exactly what was paid", async () => {
    const { receipt, signed } = await verifyPaymentReceipt(await eip712Receipt(), PAID);
    expect(receipt).toEqual({ format: "eip712", signer: payee.address, verified: true, issuedAt: Math.floor(NOW / 1000), transaction: TX });
    expect(signed?.format).toBe("eip712");
  });

  it("reports a receipt signed by another key as unverified, naming the signer", async () => {
    const { receipt } = await verifyPaymentReceipt(await eip712Receipt(stranger), PAID);
    expect(receipt).toMatchObject({ verified: false, signer: stranger.address });
    expect(receipt.reason).toContain(`signed by ${stranger.address}, not by the payee`);
  });

  it("catches a field changed after signing (the signature then recovers someone else)", async () => {
    const genuine = await eip712Receipt();
    for (const tampered of [
      { ...genuine, payload: { ...genuine.payload, resourceUrl: "http://127.0.0.1:4021/weather?city=Paris" } },
      { ...genuine, payload: { ...genuine.payload, transaction: `0x${"cd".repeat(32)}` } },
      { ...genuine, payload: { ...genuine.payload, issuedAt: genuine.payload.issuedAt + 1 } },
    ]) {
      const { receipt } = await verifyPaymentReceipt(tampered, PAID);
      expect(receipt.verified).toBe(false);
      expect(receipt.signer).not.toBe(payee.address);
    }
  });

  it("refuses a genuine receipt for something else than what was paid", async () => {
    const cases: [Parameters<typeof eip712Receipt>[1], RegExp][] = [
      [{ resourceUrl: "http://127.0.0.1:4021/weather?city=Paris" }, /another resource/],
      [{ network: "eip155:8453" }, /another network/],
      [{ payer: stranger.address }, /another payer/],
      [{ transaction: `0x${"cd".repeat(32)}` }, /another transaction/],
    ];
    for (const [overrides, reason] of cases) {
      const { receipt } = await verifyPaymentReceipt(await eip712Receipt(payee, overrides), PAID);
      expect(receipt).toMatchObject({ verified: false, signer: payee.address });
      expect(receipt.reason).toMatch(reason);
    }
    // Issued before the payment could exist, or ahead of our clock by more than the skew.
    const early = await verifyPaymentReceipt(await eip712Receipt(), { ...PAID, paidFrom: Math.floor(NOW / 1000) + 3_600 });
    expect(early.receipt.reason).toMatch(/issue time is before the payment or in the future/);
    const ahead = await verifyPaymentReceipt(await eip712Receipt(), { ...PAID, now: NOW - 3_600_000 });
    expect(ahead.receipt.reason).toMatch(/issue time/);
    // A repeat answered from a service's cache an hour later still names the same payment.
    expect((await verifyPaymentReceipt(await eip712Receipt(), { ...PAID, now: NOW + 3_600_000 })).receipt.verified).toBe(true);
  });

  it("accepts a privacy-minimal receipt (no transaction) and matches URLs as URLs", async () => {
    const { receipt } = await verifyPaymentReceipt(await eip712Receipt(payee, { transaction: "", resourceUrl: "http://127.0.0.1:4021/weather?city=Lisbon" }), {
      ...PAID,
      resourceUrls: ["HTTP://127.0.0.1:4021/weather?city=Lisbon"],
    });
    expect(receipt).toEqual({ format: "eip712", signer: payee.address, verified: true, issuedAt: Math.floor(NOW / 1000) });
  });

  it("reports malformed receipts as unverified, never throwing", async () => {
    const genuine = await eip712Receipt();
    const cases: [unknown, RegExp][] = [
      ["a string", /malformed/],
      [{ format: "pgp", signature: "x" }, /malformed/],
      [{ ...genuine, signature: "0x1234" }, /malformed \(signature\)/],
      [{ ...genuine, payload: { ...genuine.payload, issuedAt: "soon" } }, /malformed \(payload.issuedAt\)/],
      [{ ...genuine, payload: { ...genuine.payload, version: 2 } }, /version 2/],
      [{ ...genuine, signature: `0x${"00".repeat(65)}` }, /could not be recovered/],
      [{ format: "eip712", payload: { nested: { a: { b: { c: { d: 1 } } } } }, signature: "0x" }, /too large/],
      [{ format: "jws", signature: "not-a-jws" }, /malformed/],
    ];
    for (const [value, reason] of cases) {
      const { receipt } = await verifyPaymentReceipt(value, PAID);
      expect(receipt.verified).toBe(false);
      expect(receipt.reason).toMatch(reason);
    }
  });

  it("verifies an ES256K JWS whose did:jwk key is the payee's, and refuses another key", async () => {
    const payeeKey = keccak256(toHex("receipt test payee"));
    const input = { resourceUrl: PAID.resourceUrls[0]!, network: PAID.network, payer: PAID.payer, transaction: TX };
    const jws = await createReceiptJWS(input, jwsSigner(payee, payeeKey));
    const fresh = { ...PAID, now: Date.now(), paidFrom: Math.floor(Date.now() / 1000) - 60 };
    expect((await verifyPaymentReceipt(jws, fresh)).receipt).toMatchObject({ format: "jws", signer: payee.address, verified: true, transaction: TX });

    const other = await createReceiptJWS(input, jwsSigner(stranger, keccak256(toHex("receipt test stranger"))));
    expect((await verifyPaymentReceipt(other, fresh)).receipt).toMatchObject({ format: "jws", signer: stranger.address, verified: false });

    const [header, , signature] = jws.signature.split(".");
    const forgedPayload = Buffer.from(JSON.stringify({ ...input, version: 1, issuedAt: Math.floor(Date.now() / 1000), transaction: "" })).toString("base64url");
    const forged = await verifyPaymentReceipt({ format: "jws", signature: `${header}.${forgedPayload}.${signature}` }, fresh);
    expect(forged.receipt).toMatchObject({ verified: false, reason: "its signature does not match its key" });
  });
});

describe("checkSettlementReceipt", () => {
  it("finds the receipt in PAYMENT-RESPONSE, and says nothing when there is none", async () => {
    const receipt = await eip712Receipt();
    const settlement = { success: true, transaction: TX, network: "eip155:31337" as const, payer: PAID.payer };
    const withReceipt = new Headers({
      "PAYMENT-RESPONSE": encodePaymentResponseHeader({ ...settlement, extensions: { "offer-receipt": { info: { receipt } } } }),
    });
    expect((await checkSettlementReceipt(withReceipt, PAID))?.receipt.verified).toBe(true);
    expect(await checkSettlementReceipt(new Headers({ "PAYMENT-RESPONSE": encodePaymentResponseHeader(settlement) }), PAID)).toBeUndefined();
    expect(await checkSettlementReceipt(new Headers(), PAID)).toBeUndefined();
    expect(await checkSettlementReceipt(new Headers({ "PAYMENT-RESPONSE": "%%%" }), PAID)).toBeUndefined();
  });
});
