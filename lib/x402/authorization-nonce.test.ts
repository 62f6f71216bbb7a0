import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { canonicalJson, deriveAuthorizationNonce, type NonceTerms } from "./authorization-nonce";

const terms: NonceTerms = {
  payer: "0x70997970C51812dc3A010C7d01b50e0d17dc79C8",
  payTo: "0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC",
  amount: 50_000n,
  asset: "0x5FbDB2315678afecb367f032d93F642f64180aa3",
  network: "eip155:31337",
  chainId: 31337,
  resource: "http://127.0.0.1:4000/weather?city=Lisbon",
  method: "GET",
  validAfter: 1_700_000_000n,
  validBefore: 1_700_000_300n,
  requirements: { scheme: "exact", amount: "50000", extra: { version: "2", name: "USD Coin" } },
  intent: "",
};

/** The nonce `terms` had before content types were bound (computed with that version). */
const PINNED_GET_NONCE = "0xd0a908e37f3b3931f8cc835d79810852c825e81b13da7911c682caf0a2a5aedd";

describe("deriveAuthorizationNonce", () => {
  it("is a 32-byte hex value, stable for equal terms whatever the key order or address case", () => {
    const nonce = deriveAuthorizationNonce("secret".repeat(8), terms);
    expect(nonce).toMatch(/^0x[0-9a-f]{64}$/);
    const reordered = {
      ...terms,
      payer: terms.payer.toLowerCase(),
      requirements: { extra: { name: "USD Coin", version: "2" }, amount: "50000", scheme: "exact" },
    };
    expect(deriveAuthorizationNonce("secret".repeat(8), reordered)).toBe(nonce);
  });

  it("changes when any term or the secret changes", () => {
    const nonce = deriveAuthorizationNonce("s".repeat(32), terms);
    const variants: Partial<NonceTerms>[] = [
      { payer: "0x0000000000000000000000000000000000000001" },
      { payTo: "0x0000000000000000000000000000000000000002" },
      { amount: 50_001n },
      { asset: "0x0000000000000000000000000000000000000003" },
      { network: "eip155:8453" },
      { chainId: 8453 },
      { resource: "http://127.0.0.1:4000/weather?city=Porto" },
      { method: "POST" },
      { validAfter: 1n },
      { validBefore: 1_700_000_301n },
      { requirements: { ...terms.requirements, amount: "1" } },
      { intent: "call-2" },
    ];
    for (const variant of variants) {
      expect(
        deriveAuthorizationNonce("s".repeat(32), { ...terms, ...variant }),
        JSON.stringify(variant, (_, v) => (typeof v === "bigint" ? String(v) : v)),
      ).not.toBe(nonce);
    }
    expect(deriveAuthorizationNonce("t".repeat(32), terms)).not.toBe(nonce);
  });

  it("canonicalises JSON so that equal objects give equal text", () => {
    fc.assert(
      fc.property(fc.dictionary(fc.string(), fc.jsonValue()), (value) => {
        const reversed = Object.fromEntries(Object.entries(value).reverse());
        expect(canonicalJson(reversed)).toBe(canonicalJson(value));
      }),
    );
  });

  it("binds a body's content type, and leaves the nonce of a body-less request as it was", () => {
    const secret = "s".repeat(32);
    const withBody = { ...terms, method: "POST", body: "email=a%40b.example" };
    const form = deriveAuthorizationNonce(secret, { ...withBody, contentType: "application/x-www-form-urlencoded" });
    expect(deriveAuthorizationNonce(secret, { ...withBody, contentType: "text/plain; charset=utf-8" })).not.toBe(form);
    // No named type is JSON, the type such a body is sent with.
    expect(deriveAuthorizationNonce(secret, withBody)).toBe(deriveAuthorizationNonce(secret, { ...withBody, contentType: "application/json" }));
    expect(deriveAuthorizationNonce(secret, withBody)).not.toBe(form);
    expect(deriveAuthorizationNonce(secret, { ...terms, contentType: "text/plain; charset=utf-8" })).toBe(deriveAuthorizationNonce(secret, terms));
    // Pinned: a GET's nonce is the one it had before content types were bound.
    expect(deriveAuthorizationNonce(secret, terms)).toBe(PINNED_GET_NONCE);
  });

  it("binds the echoed extensions: one changed, added or removed is another nonce; none leaves it as it was", () => {
    const secret = "s".repeat(32);
    const bazaar = { info: { input: { type: "http", method: "GET", queryParams: { city: "Lisbon" } } }, schema: { type: "object" } };
    const identifier = { info: { required: false, id: "pay_0123456789abcdef0123456789abcdef" }, schema: { type: "object" } };
    const extensions = { bazaar, "payment-identifier": identifier };
    const bound = deriveAuthorizationNonce(secret, { ...terms, extensions });
    expect(bound).not.toBe(PINNED_GET_NONCE);
    // Key order is not a term.
    expect(deriveAuthorizationNonce(secret, { ...terms, extensions: { "payment-identifier": identifier, bazaar } })).toBe(bound);
    const variants: Record<string, unknown>[] = [
      { bazaar: { ...bazaar, info: { input: { ...bazaar.info.input, queryParams: { city: "Porto" } } } }, "payment-identifier": identifier },
      { bazaar, "payment-identifier": { ...identifier, info: { required: false, id: "pay_ffffffffffffffffffffffffffffffff" } } },
      { ...extensions, foo: { info: {} } },
      { bazaar },
      {},
    ];
    for (const variant of variants) expect(deriveAuthorizationNonce(secret, { ...terms, extensions: variant }), JSON.stringify(variant)).not.toBe(bound);
    // Absent: the nonce of an approval made before extensions were bound.
    expect(deriveAuthorizationNonce(secret, { ...terms, extensions: undefined })).toBe(PINNED_GET_NONCE);
  });
});
