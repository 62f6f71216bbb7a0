import { encodePaymentRequiredHeader } from "@x402/core/http";
import { describe, expect, it } from "vitest";
import { readPaymentRequired } from "../x402/payment-requirements";
import { askUnpaid, probeListing, type ProbeFetch } from "./probe-listing";

const usdc = "0x5FbDB2315678afecb367f032d93F642f64180aa3";
const payTo = "0x70997970C51812dc3A010C7d01b50e0d17dc79C8";
const network = { networkNames: ["eip155:31337", "anvil"], usdc } as const;
const listing = { resource: "http://127.0.0.1:4021/weather", amount: 50_000n };

function option(overrides: Record<string, unknown> = {}) {
  return {
    scheme: "exact",
    network: "eip155:31337",
    amount: "50000",
    asset: usdc,
    payTo,
    maxTimeoutSeconds: 60,
    extra: { name: "USD Coin", version: "2" },
    ...overrides,
  };
}

/** A fetch answering a v2 402 offering these options, and counting what it was asked. */
function answering402(...accepts: Record<string, unknown>[]): ProbeFetch & { calls: RequestInit[] } {
  const calls: RequestInit[] = [];
  const fetch = async (_url: string, init: RequestInit) => {
    calls.push(init);
    const paymentRequired = { x402Version: 2, resource: { url: listing.resource }, accepts };
    return new Response(null, { status: 402, headers: { "PAYMENT-REQUIRED": encodePaymentRequiredHeader(paymentRequired as never) } });
  };
  return Object.assign(fetch, { calls });
}

describe("probeListing", () => {
  it("finds a listing buyable when its 402 offers our network and asset at its listed price, and sends no payment", async () => {
    const fetch = answering402(option({ network: "eip155:8453" }), option());
    expect(await probeListing(fetch, listing, network)).toMatchObject({ verdict: "buyable" });
    expect(fetch.calls).toHaveLength(1);
    expect(new Headers(fetch.calls[0]!.headers).has("PAYMENT-SIGNATURE")).toBe(false);
    expect(fetch.calls[0]!.redirect).toBe("manual");
  });

  it("tells unpayable terms (another network, another asset) from a price above the listing", async () => {
    expect(await probeListing(answering402(option({ network: "eip155:8453" })), listing, network)).toMatchObject({ verdict: "unpayable" });
    expect(await probeListing(answering402(option({ asset: "0x0000000000000000000000000000000000000001" })), listing, network)).toMatchObject({
      verdict: "unpayable",
    });
    expect(await probeListing(answering402(option({ amount: "50001" })), listing, network)).toMatchObject({
      verdict: "price-above-listing",
      detail: "asks 0.050001 USDC, lists 0.05 USDC",
    });
  });

  it("finds a 402 the SDK's schemas refuse unpayable, though our own reader would take it", async () => {
    // No `resource`: the SDK's v2 schema requires it; our reader does without.
    const body = { x402Version: 2, accepts: [option()] };
    expect(readPaymentRequired(new Headers(), body)).toBeDefined();
    const fetch: ProbeFetch = async () => new Response(JSON.stringify(body), { status: 402, headers: { "content-type": "application/json" } });
    expect(await probeListing(fetch, listing, network)).toMatchObject({ verdict: "unpayable", detail: "its 402 fails the x402 SDK's schemas" });
  });

  it("finds a 500 before any payment failing, and no answer unreachable", async () => {
    expect(await probeListing(async () => new Response("boom", { status: 500 }), listing, network)).toMatchObject({
      verdict: "failing",
      detail: "answers 500 before any payment",
      transient: true,
    });
    // A 404 says the listed call is wrong: nothing to wait for.
    expect((await probeListing(async () => new Response("no", { status: 404 }), listing, network)).transient).toBeUndefined();
    const refused: ProbeFetch = async () => {
      throw new TypeError("fetch failed");
    };
    expect(await probeListing(refused, listing, network)).toMatchObject({ verdict: "unreachable", transient: true });
    const hangs: ProbeFetch = (_url, init) => new Promise((_resolve, reject) => init.signal?.addEventListener("abort", () => reject(new Error("aborted"))));
    expect(await probeListing(hangs, listing, network, 20)).toMatchObject({ verdict: "unreachable", detail: "no answer within 20 ms" });
  });

  it("asks the way the listing's example call says", async () => {
    const seen: { url: string; init: RequestInit }[] = [];
    const fetch: ProbeFetch = async (url, init) => {
      seen.push({ url, init });
      return new Response(null, { status: 402 });
    };
    await askUnpaid(fetch, { resource: "http://127.0.0.1:4021/summarize", input: { method: "POST", query: [], path: [], body: { type: "json", fields: [] } } });
    expect(seen[0]?.init.method).toBe("POST");
  });
});
