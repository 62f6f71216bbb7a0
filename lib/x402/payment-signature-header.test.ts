/**
 * The approval's PAYMENT-SIGNATURE header: what the browser encodes comes back decoded as it
 * was, echoed extensions included, within the same bounds as the server's echo; and an approval
 * is only ever given the extensions a header can carry back.
 */
import { describe, expect, it } from "vitest";
import type { ApprovalRequest } from "../stream";
import { ECHO_BUDGET_CHARS, MAX_ECHOED_EXTENSIONS } from "../stream/extension-echo-bounds";
import { decodePaymentSignatureHeader, encodePaymentSignatureHeader, extensionsThatFit, MAX_PAYMENT_SIGNATURE_HEADER_CHARS } from "./payment-signature-header";

const payer = "0x70997970C51812dc3A010C7d01b50e0d17dc79C8";
const payTo = "0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC";
const usdc = "0x5FbDB2315678afecb367f032d93F642f64180aa3";
const signature = `0x${"ab".repeat(65)}` as const;
const requirements = {
  scheme: "exact",
  network: "eip155:31337",
  amount: "10000",
  asset: usdc,
  payTo,
  maxTimeoutSeconds: 60,
  extra: { name: "USD Coin", version: "2" },
};

const approval: ApprovalRequest = {
  method: "GET",
  resource: "http://127.0.0.1:4000/weather?city=Lisbon",
  amount: "0.01",
  asset: usdc,
  network: "eip155:31337",
  payTo,
  expiresAt: 1_700_000_300,
  x402Version: 2,
  scheme: "exact",
  requirements,
  typedData: {
    domain: { name: "USD Coin", version: "2", chainId: 31337, verifyingContract: usdc },
    types: { TransferWithAuthorization: [{ name: "from", type: "address" }] },
    primaryType: "TransferWithAuthorization",
    message: { from: payer, to: payTo, value: "10000", validAfter: "1700000000", validBefore: "1700000300", nonce: `0x${"12".repeat(32)}` },
  },
};

const bazaar = { info: { input: { type: "http", method: "GET", queryParams: { city: "Lisbon" } } }, schema: { type: "object" } };
const extensions = { bazaar, "payment-identifier": { info: { required: false, id: "pay_0123456789abcdef0123456789abcdef" } } };

/** The header's JSON, as a hostile browser could write it. */
const raw = (payload: unknown) => Buffer.from(JSON.stringify(payload)).toString("base64");
/** The header's JSON for the approval without extensions. */
const baseline = () => JSON.parse(Buffer.from(encodePaymentSignatureHeader(approval, signature), "base64").toString()) as Record<string, unknown>;

describe("the PAYMENT-SIGNATURE header and the echoed extensions", () => {
  it("round-trips the extensions exactly, and carries none for an approval without them", () => {
    expect(decodePaymentSignatureHeader(encodePaymentSignatureHeader({ ...approval, extensions }, signature))).toMatchObject({
      extensions,
      accepted: requirements,
      payload: { signature },
    });
    const bare = decodePaymentSignatureHeader(encodePaymentSignatureHeader(approval, signature));
    expect(bare).toBeDefined();
    expect(bare).not.toHaveProperty("extensions");
  });

  it("refuses extensions past the echo's bounds: too many, over the budget together, one too deep", () => {
    const base = baseline();
    const many = Object.fromEntries(Array.from({ length: MAX_ECHOED_EXTENSIONS + 1 }, (_, index) => [`ext-${index}`, {}]));
    const atMost = Object.fromEntries(Object.entries(many).slice(0, MAX_ECHOED_EXTENSIONS));
    expect(decodePaymentSignatureHeader(raw({ ...base, extensions: atMost }))).toBeDefined();
    expect(decodePaymentSignatureHeader(raw({ ...base, extensions: many }))).toBeUndefined();
    const half = "x".repeat(ECHO_BUDGET_CHARS / 2);
    expect(decodePaymentSignatureHeader(raw({ ...base, extensions: { a: { info: half }, b: { info: half } } }))).toBeUndefined();
    let deep: unknown = { leaf: true };
    for (let level = 0; level < 12; level += 1) deep = { inner: deep };
    expect(decodePaymentSignatureHeader(raw({ ...base, extensions: { deep } }))).toBeUndefined();
    expect(decodePaymentSignatureHeader(raw({ ...base, extensions: ["bazaar"] }))).toBeUndefined();
  });

  it("gives an approval all its extensions when its header fits, else the first ones that fit, else none", () => {
    expect(extensionsThatFit(approval, extensions)).toEqual(extensions);
    expect(extensionsThatFit(approval, undefined)).toBeUndefined();
    // A body near the approval's limit leaves room for the small first extension only.
    const big = { info: { text: "y".repeat(ECHO_BUDGET_CHARS - 64) } };
    const withBody: ApprovalRequest = { ...approval, method: "POST", body: "z".repeat(4_096), contentType: "application/json" };
    const fitted = extensionsThatFit(withBody, { "payment-identifier": extensions["payment-identifier"], big });
    expect(fitted).toEqual({ "payment-identifier": extensions["payment-identifier"] });
    expect(
      encodePaymentSignatureHeader({ ...withBody, extensions: { "payment-identifier": extensions["payment-identifier"], big } }, signature).length,
    ).toBeGreaterThanOrEqual(MAX_PAYMENT_SIGNATURE_HEADER_CHARS);
    const header = encodePaymentSignatureHeader({ ...withBody, extensions: fitted }, `0x${"f".repeat(1022)}`);
    expect(header.length).toBeLessThan(MAX_PAYMENT_SIGNATURE_HEADER_CHARS);
    expect(decodePaymentSignatureHeader(header)?.extensions).toEqual(fitted);
    expect(extensionsThatFit(withBody, { big })).toBeUndefined();
  });

  it("keeps of a declared __proto__ what the stream keeps (nothing), so the nonce binds what comes back", () => {
    const hostile = JSON.parse('{"__proto__":{"info":{}},"bazaar":{"info":{}}}') as Record<string, unknown>;
    const fitted = extensionsThatFit(approval, hostile);
    expect(fitted && Object.keys(fitted)).toEqual(["bazaar"]);
    expect(Object.getPrototypeOf(fitted)).toBe(Object.prototype);
  });
});
