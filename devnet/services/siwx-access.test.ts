/**
 * The archive's sign-in-with-x rules without a network: challenges come from the extension's
 * own 402 enrichment, proofs are signed with the SDK's client helpers, payments are recorded
 * through the settle hook, and the request hook decides. Only a wallet that paid for that path
 * signs in, once per challenge, at this origin, in time.
 */
import type { HTTPRequestContext, RouteConfig } from "@x402/core/server";
import { createSIWxPayload, encodeSIWxHeader, type CompleteSIWxInfo, type SIWxExtension } from "@x402/extensions/sign-in-with-x";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { afterEach, describe, expect, it, vi } from "vitest";
import { BoundedSiwxStorage, createSiwxAccess, SIWX_CHALLENGE_SECONDS, type SiwxAccess } from "./siwx-access";

const ORIGIN = "http://127.0.0.1:4021";
const PATH = "/archive/documents/doc-1";
const NETWORK = "eip155:31337";
const payer = privateKeyToAccount(generatePrivateKey());
const stranger = privateKeyToAccount(generatePrivateKey());
const route = { accepts: { scheme: "exact", network: NETWORK, payTo: payer.address, price: "$0.01" } } as unknown as RouteConfig;

afterEach(() => {
  vi.useRealTimers();
});

function declarationOf(access: SiwxAccess) {
  return access.declaration["sign-in-with-x"];
}

/** A challenge as the service's 402 would carry it, for `path` at `origin`. */
async function challenge(access: SiwxAccess, origin = ORIGIN, path = PATH): Promise<CompleteSIWxInfo> {
  const enrich = access.extension.enrichPaymentRequiredResponse!;
  const declared = (await enrich(declarationOf(access), {
    requirements: [{ scheme: "exact", network: NETWORK }],
    resourceInfo: { url: `${origin}${path}` },
  } as never)) as SIWxExtension;
  return { ...declared.info, chainId: NETWORK, type: "eip191" };
}

async function header(info: CompleteSIWxInfo, signer = payer, url = `${ORIGIN}${PATH}`): Promise<string> {
  return encodeSIWxHeader(await createSIWxPayload(info, signer, url));
}

/** What the service's request hook decides for a request carrying `value` as SIGN-IN-WITH-X. */
async function decide(access: SiwxAccess, value: string | undefined, path = PATH): Promise<unknown> {
  const context = {
    adapter: { getHeader: (name: string) => (name.toLowerCase() === "sign-in-with-x" ? value : undefined) },
    path,
    method: "GET",
  } as unknown as HTTPRequestContext;
  return access.extension.transportHooks!.http!.onProtectedRequest!(declarationOf(access), context, route);
}

async function recordPayment(access: SiwxAccess, address: string, path = PATH): Promise<void> {
  await access.extension.hooks!.onAfterSettle!(declarationOf(access), {
    paymentPayload: { resource: { url: `${ORIGIN}${path}?ignored=1` } },
    result: { success: true, payer: address },
  } as never);
}

describe("the archive's sign-in-with-x", () => {
  it("declares the extension and hands out challenges for its own origin, with an expiry", async () => {
    const access = createSiwxAccess(ORIGIN);
    const info = await challenge(access);
    expect(info).toMatchObject({ domain: "127.0.0.1:4021", uri: `${ORIGIN}${PATH}`, version: "1", resources: [`${ORIGIN}${PATH}`] });
    // The SDK reads the clock twice, so the two times may be a millisecond further apart.
    expect(Date.parse(info.expirationTime!) - Date.parse(info.issuedAt) - SIWX_CHALLENGE_SECONDS * 1000).toBeLessThan(50);
  });

  it("serves a wallet that paid for this path, once per challenge", async () => {
    const access = createSiwxAccess(ORIGIN);
    await recordPayment(access, payer.address);
    const signed = await header(await challenge(access));
    expect(await decide(access, signed)).toEqual({ grantAccess: true });
    // The same header again: its nonce is used up.
    expect(await decide(access, signed)).toBeUndefined();
    // A fresh challenge signs in again.
    expect(await decide(access, await header(await challenge(access)))).toEqual({ grantAccess: true });
  });

  it("refuses a wallet that never paid, and a payer of another path", async () => {
    const access = createSiwxAccess(ORIGIN);
    await recordPayment(access, payer.address, "/archive/documents/doc-2");
    expect(await decide(access, await header(await challenge(access)))).toBeUndefined();
    expect(await decide(access, undefined)).toBeUndefined();
  });

  it("refuses a proof whose signature is not the named wallet's", async () => {
    const access = createSiwxAccess(ORIGIN);
    await recordPayment(access, payer.address);
    const byStranger = JSON.parse(Buffer.from(await header(await challenge(access), stranger), "base64").toString("utf8")) as Record<string, unknown>;
    const forged = Buffer.from(JSON.stringify({ ...byStranger, address: payer.address })).toString("base64");
    expect(await decide(access, forged)).toBeUndefined();
  });

  it("refuses an expired challenge", async () => {
    vi.useFakeTimers({ now: Date.parse("2030-01-01T00:00:00Z") });
    const access = createSiwxAccess(ORIGIN);
    await recordPayment(access, payer.address);
    const signed = await header(await challenge(access));
    vi.setSystemTime(Date.parse("2030-01-01T00:00:00Z") + (SIWX_CHALLENGE_SECONDS + 1) * 1000);
    expect(await decide(access, signed)).toBeUndefined();
  });

  it("refuses a sign-in made for another origin, and a challenge it never issued", async () => {
    const access = createSiwxAccess(ORIGIN);
    await recordPayment(access, payer.address);
    const elsewhere = createSiwxAccess("http://127.0.0.1:5999");
    const otherOrigin = await header(await challenge(elsewhere, "http://127.0.0.1:5999"), payer, `http://127.0.0.1:5999${PATH}`);
    expect(await decide(access, otherOrigin)).toBeUndefined();
    // Right origin, but a nonce this service never handed out.
    const made = { ...(await challenge(access)), nonce: "0123456789abcdef0123456789abcdef" };
    expect(await decide(access, await header(made))).toBeUndefined();
  });
});

describe("BoundedSiwxStorage", () => {
  it("forgets the oldest payments and challenges past its bounds", () => {
    const storage = new BoundedSiwxStorage(Date.now, { payments: 2, challenges: 2 });
    storage.recordPayment("/a", payer.address);
    storage.recordPayment("/b", payer.address);
    storage.recordPayment("/c", payer.address);
    expect([storage.hasPaid("/a", payer.address), storage.hasPaid("/b", payer.address.toLowerCase()), storage.hasPaid("/c", payer.address)]).toEqual([
      false,
      true,
      true,
    ]);
    for (const nonce of ["n1", "n2", "n3"]) storage.issueNonce(nonce);
    expect(["n1", "n2", "n3"].map((nonce) => storage.hasUsedNonce(nonce))).toEqual([true, false, false]);
  });

  it("treats a challenge past its lifetime as used", () => {
    let now = 1_000_000;
    const storage = new BoundedSiwxStorage(() => now);
    storage.issueNonce("n1");
    expect(storage.hasUsedNonce("n1")).toBe(false);
    now += SIWX_CHALLENGE_SECONDS * 1000;
    expect(storage.hasUsedNonce("n1")).toBe(true);
  });
});
