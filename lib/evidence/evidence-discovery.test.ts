/**
 * Discovery with evidence: only what can be bought is listed (the rest counted and listed apart
 * with its reason), a discovery waits a bounded time for its first candidates' probes, and our
 * payments' outcomes rank what is left, shared by every instance over one store.
 */
import { describe, expect, it } from "vitest";
import { MemoryJournal } from "../journal/memory-journal";
import { WITHOUT_MCP_TOOLS, type DiscoveryClient } from "../x402/discovery-client";
import type { ServiceListing } from "../x402/discovery-listing";
import { withEvidence } from "./evidence-discovery";
import type { ProbeFinding } from "./evidence-store";
import { createListingProber } from "./listing-prober";
import { MemoryEvidenceStore } from "./memory-evidence-store";

const network = { networkNames: ["eip155:31337"], usdc: "0x5FbDB2315678afecb367f032d93F642f64180aa3" } as const;
const GOOD_PAYEE = "0x9965507D1a55bcC2695C58ba16FB37d819B0A4dc";
const BAD_PAYEE = "0x70997970C51812dc3A010C7d01b50e0d17dc79C8";

function listing(path: string, amount = 1000n, payTo = GOOD_PAYEE): ServiceListing {
  return {
    name: "Weather",
    resource: `http://127.0.0.1:4021${path}`,
    description: "Current weather for a city.",
    price: "0.001",
    amount,
    network: "eip155:31337",
    x402Version: 2,
    tags: ["weather"],
    payTo,
  };
}

function discoveryOf(listings: ServiceListing[]): DiscoveryClient {
  return { find: async () => ({ listings, dropped: { "this-app": 1 } }), lookup: () => undefined, ...WITHOUT_MCP_TOOLS };
}

/** Probe findings by path; a path not named hangs until its timeout. */
function prober(store: MemoryEvidenceStore, findings: Record<string, ProbeFinding["verdict"]>, probed: string[] = []) {
  return createListingProber({
    fetch: globalThis.fetch,
    network,
    store,
    hostSpacingMs: 0,
    probe: async (probedListing, timeoutMs) => {
      probed.push(new URL(probedListing.resource).pathname);
      const verdict = findings[new URL(probedListing.resource).pathname];
      if (verdict) return { verdict, latencyMs: 1 };
      await new Promise((resolve) => setTimeout(resolve, timeoutMs));
      return { verdict: "unreachable", latencyMs: timeoutMs };
    },
  });
}

describe("discovery with evidence", () => {
  it("lists only what a probe found buyable, counts the rest per reason and lists them apart, before anyone chooses", async () => {
    const store = new MemoryEvidenceStore(new MemoryJournal());
    const listings = [listing("/dead"), listing("/other-network"), listing("/dearer"), listing("/error"), listing("/real")];
    const discovery = withEvidence(discoveryOf(listings), {
      store,
      prober: prober(store, {
        "/dead": "unreachable",
        "/other-network": "unpayable",
        "/dearer": "price-above-listing",
        "/error": "failing",
        "/real": "buyable",
      }),
    });
    const found = await discovery.find("weather");
    expect(found.listings.map((entry) => entry.resource)).toEqual([listings[4]!.resource]);
    expect(found.listings[0]?.evidence).toMatchObject({ checkedAt: expect.any(Number), delivered: 0, failedAfterPayment: 0 });
    expect(found.dropped).toEqual({ "this-app": 1, unreachable: 1, unpayable: 1, "price-above-listing": 1, failing: 1 });
    expect(found.apart?.map((entry) => [new URL(entry.listing.resource).pathname, entry.reason])).toEqual([
      ["/dead", "unreachable"],
      ["/other-network", "unpayable"],
      ["/dearer", "price-above-listing"],
      ["/error", "failing"],
    ]);
  });

  it("waits at most its budget for the first candidates' probes, and answers with the listings unchecked after it", async () => {
    const store = new MemoryEvidenceStore(new MemoryJournal());
    const probed: string[] = [];
    const listings = [listing("/hangs"), listing("/also-hangs")];
    const discovery = withEvidence(discoveryOf(listings), { store, prober: prober(store, {}, probed), waitBudgetMs: 30 });
    const found = await discovery.find("weather");
    expect(found.listings.map((entry) => new URL(entry.resource).pathname)).toEqual(["/hangs", "/also-hangs"]);
    expect(found.listings[0]?.evidence?.checkedAt).toBeUndefined();
    expect(probed).toContain("/hangs");
  });

  it("ranks a listing that took our money and delivered nothing below an equal one that delivered, on another instance too", async () => {
    const journal = new MemoryJournal();
    const store = new MemoryEvidenceStore(journal);
    const listings = [listing("/takes-money", 500n, BAD_PAYEE), listing("/real")];
    const findings = { "/takes-money": "buyable", "/real": "buyable" } as const;
    const first = withEvidence(discoveryOf(listings), { store, prober: prober(store, findings) });
    // No history: the cheaper one first.
    expect((await first.find("weather")).listings.map((entry) => new URL(entry.resource).pathname)).toEqual(["/takes-money", "/real"]);
    const at = Date.now();
    await journal.record({
      id: "pay_1",
      status: "confirmed",
      at,
      payer: "0x52908400098527886E0F7030069857D2E4169EE7",
      resource: `${listings[0]!.resource}?city=Lisbon`,
      payTo: BAD_PAYEE,
      txHash: `0x${"ab".repeat(32)}`,
    });
    await journal.record({ id: "pay_1", status: "failed", at: at + 1, reason: "service-unavailable" });
    // Another instance: its own prober and discovery, the same store.
    const second = withEvidence(discoveryOf(listings), { store, prober: prober(store, findings) });
    const found = await second.find("weather");
    expect(found.listings.map((entry) => new URL(entry.resource).pathname)).toEqual(["/real", "/takes-money"]);
    expect(found.listings[1]?.evidence).toMatchObject({ delivered: 0, failedAfterPayment: 1 });
  });

  it("never lifts a less relevant listing above a more relevant one", async () => {
    const store = new MemoryEvidenceStore(new MemoryJournal());
    const journal = new MemoryJournal();
    const withHistory = new MemoryEvidenceStore(journal);
    const weather = { ...listing("/weather"), payTo: BAD_PAYEE };
    const news = { ...listing("/news"), name: "News", description: "Headlines.", tags: ["news"] };
    await journal.record({
      id: "pay_2",
      status: "failed",
      at: Date.now(),
      payer: "0x52908400098527886E0F7030069857D2E4169EE7",
      resource: weather.resource,
      payTo: BAD_PAYEE,
      txHash: `0x${"cd".repeat(32)}`,
    });
    for (const evidence of [store, withHistory]) {
      const discovery = withEvidence(discoveryOf([weather, news]), {
        store: evidence,
        prober: prober(evidence, { "/weather": "buyable", "/news": "buyable" }),
      });
      expect((await discovery.find("weather")).listings.map((entry) => new URL(entry.resource).pathname)).toEqual(["/weather", "/news"]);
    }
  });

  it("answers as discovery did when the evidence store fails", async () => {
    const store = new MemoryEvidenceStore(new MemoryJournal());
    store.outcomes = async () => {
      throw new Error("database down");
    };
    const listings = [listing("/real")];
    const found = await withEvidence(discoveryOf(listings), { store, prober: prober(store, { "/real": "buyable" }) }).find("weather");
    expect(found).toEqual({ listings, dropped: { "this-app": 1 } });
  });
});
