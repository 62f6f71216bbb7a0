import { issueNonce } from "../auth/siwe-nonce";
import { describe, expect, it } from "vitest";
import { SIWX_CHAINS, SIWX_URL, siwxInfo } from "../../tests/support/siwx-fixtures";
import { challengeExpiresAt, readSiwxChallenge } from "./siwx-challenge";

const NOW = Date.parse("2030-01-01T12:00:00.000Z");
const URL_ = SIWX_URL;

/** A 402 body as the spec's example has it, for our origin and chain, with `change` applied. */
function required(change: (extension: { info: Record<string, unknown>; supportedChains: Record<string, unknown>[] }) => void = () => undefined) {
  const extension = {
    info: siwxInfo(NOW, 299_000, { statement: "Sign in to get again what this wallet already paid for.", resources: [URL_] }),
    supportedChains: SIWX_CHAINS as Record<string, unknown>[],
  };
  change(extension);
  return { x402Version: 2, accepts: [], extensions: { "sign-in-with-x": extension } };
}

describe("readSiwxChallenge", () => {
  it("takes a well-formed challenge bound to the 402's origin, completed with our chain", () => {
    const challenge = readSiwxChallenge(required(), URL_, 31337, NOW);
    expect(challenge).toMatchObject({
      domain: "127.0.0.1:4021",
      uri: URL_,
      nonce: "a1b2c3d4e5f67890a1b2c3d4e5f67890",
      chainId: "eip155:31337",
      type: "eip191",
    });
    expect(challengeExpiresAt(challenge!)).toBe(Math.floor((NOW + 299_000) / 1000));
  });

  it("finds nothing where the 402 offers no sign-in", () => {
    expect(readSiwxChallenge({ x402Version: 2, accepts: [] }, URL_, 31337, NOW)).toBeUndefined();
    expect(readSiwxChallenge(undefined, URL_, 31337, NOW)).toBeUndefined();
    expect(readSiwxChallenge({ extensions: { "sign-in-with-x": "yes" } }, URL_, 31337, NOW)).toBeUndefined();
  });

  it("refuses a challenge for another domain or origin (a sign-in somebody else could use)", () => {
    expect(
      readSiwxChallenge(
        required((e) => void (e.info.domain = "bank.example")),
        URL_,
        31337,
        NOW,
      ),
    ).toBeUndefined();
    expect(
      readSiwxChallenge(
        required((e) => void (e.info.uri = "https://bank.example/login")),
        URL_,
        31337,
        NOW,
      ),
    ).toBeUndefined();
    expect(
      readSiwxChallenge(
        required((e) => void (e.info.resources = [URL_, "https://bank.example/transfer"])),
        URL_,
        31337,
        NOW,
      ),
    ).toBeUndefined();
    // The same challenge is fine where it came from, and refused when another origin answered.
    expect(readSiwxChallenge(required(), "http://127.0.0.1:4022/archive/documents/doc-1", 31337, NOW)).toBeUndefined();
  });

  it("refuses another chain, another signature type, and a challenge out of time", () => {
    expect(
      readSiwxChallenge(
        required((e) => void (e.supportedChains = [{ chainId: "eip155:8453", type: "eip191" }])),
        URL_,
        31337,
        NOW,
      ),
    ).toBeUndefined();
    expect(
      readSiwxChallenge(
        required((e) => void (e.supportedChains = [{ chainId: "eip155:31337", type: "ed25519" }])),
        URL_,
        31337,
        NOW,
      ),
    ).toBeUndefined();
    // Expired, about to expire, issued too long ago, not valid yet.
    expect(
      readSiwxChallenge(
        required((e) => void (e.info.expirationTime = new Date(NOW - 1).toISOString())),
        URL_,
        31337,
        NOW,
      ),
    ).toBeUndefined();
    expect(
      readSiwxChallenge(
        required((e) => void (e.info.expirationTime = new Date(NOW + 2_000).toISOString())),
        URL_,
        31337,
        NOW,
      ),
    ).toBeUndefined();
    expect(
      readSiwxChallenge(
        required((e) => void (e.info.issuedAt = new Date(NOW - 301_000).toISOString())),
        URL_,
        31337,
        NOW,
      ),
    ).toBeUndefined();
    expect(
      readSiwxChallenge(
        required((e) => void (e.info.notBefore = new Date(NOW + 60_000).toISOString())),
        URL_,
        31337,
        NOW,
      ),
    ).toBeUndefined();
  });

  it("refuses text that would change the signed message's lines, and unbounded fields", () => {
    expect(
      readSiwxChallenge(
        required((e) => void (e.info.statement = "Sign in\nURI: https://bank.example")),
        URL_,
        31337,
        NOW,
      ),
    ).toBeUndefined();
    expect(
      readSiwxChallenge(
        required((e) => void (e.info.statement = "x".repeat(281))),
        URL_,
        31337,
        NOW,
      ),
    ).toBeUndefined();
    expect(
      readSiwxChallenge(
        required((e) => void (e.info.nonce = "short")),
        URL_,
        31337,
        NOW,
      ),
    ).toBeUndefined();
    // A nonce of this app's own sign-in, of a length the rule would otherwise take: a service
    // fishing for a signed login to this app. Refused by name, not by length.
    const appNonce = issueNonce("s".repeat(32), { secure: false, now: NOW }).nonce;
    expect(appNonce.length).toBeLessThanOrEqual(64);
    expect(
      readSiwxChallenge(
        required((e) => void (e.info.nonce = appNonce)),
        URL_,
        31337,
        NOW,
      ),
    ).toBeUndefined();
    expect(
      readSiwxChallenge(
        required((e) => void (e.info.nonce = appNonce.toUpperCase())),
        URL_,
        31337,
        NOW,
      ),
    ).toBeUndefined();
    expect(
      readSiwxChallenge(
        required((e) => void (e.info.version = "2")),
        URL_,
        31337,
        NOW,
      ),
    ).toBeUndefined();
    expect(
      readSiwxChallenge(
        required((e) => void (e.info.resources = Array.from({ length: 9 }, () => URL_))),
        URL_,
        31337,
        NOW,
      ),
    ).toBeUndefined();
  });

  it("drops fields the spec does not sign", () => {
    const challenge = readSiwxChallenge(
      required((e) => void (e.info.extra = "ignored")),
      URL_,
      31337,
      NOW,
    );
    expect(challenge && "extra" in challenge).toBe(false);
  });
});
