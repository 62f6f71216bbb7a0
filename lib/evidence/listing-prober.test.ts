import { describe, expect, it } from "vitest";
import { MemoryJournal } from "../journal/memory-journal";
import type { ProbeFinding } from "./evidence-store";
import { createListingProber } from "./listing-prober";
import { MemoryEvidenceStore } from "./memory-evidence-store";

const network = { networkNames: ["eip155:31337"], usdc: "0x5FbDB2315678afecb367f032d93F642f64180aa3" } as const;
const listing = (path: string, host = "127.0.0.1:4021") => ({ resource: `http://${host}${path}`, amount: 1000n });

/** A probe that records when each listing started and the most that ran at once. */
function countingProbe(finding: ProbeFinding = { verdict: "buyable", latencyMs: 1 }) {
  const started: string[] = [];
  let running = 0;
  let most = 0;
  const probe = async (probed: { resource: string }) => {
    started.push(probed.resource);
    running += 1;
    most = Math.max(most, running);
    await new Promise((resolve) => setTimeout(resolve, 5));
    running -= 1;
    return finding;
  };
  return { probe, started, most: () => most };
}

describe("the listing prober", () => {
  it("probes each listing once per interval across instances sharing a store, and stores the finding", async () => {
    const store = new MemoryEvidenceStore(new MemoryJournal());
    const counting = countingProbe({ verdict: "failing", detail: "answers 500 before any payment", latencyMs: 2 });
    const instances = [1, 2].map(() => createListingProber({ fetch: globalThis.fetch, network, store, probe: counting.probe, hostSpacingMs: 0 }));
    const listings = [listing("/a"), listing("/b")];
    await Promise.all(instances.map((prober) => prober.refresh(listings)));
    await instances[0]!.refresh(listings);
    expect(counting.started.sort()).toEqual([listings[0]!.resource, listings[1]!.resource]);
    expect((await store.probes([listings[0]!.resource])).get(listings[0]!.resource)).toMatchObject({ verdict: "failing" });
  });

  it("runs at most `concurrency` probes at once", async () => {
    const store = new MemoryEvidenceStore(new MemoryJournal());
    const counting = countingProbe();
    const prober = createListingProber({ fetch: globalThis.fetch, network, store, probe: counting.probe, concurrency: 2, hostSpacingMs: 0 });
    await prober.refresh(Array.from({ length: 7 }, (_, index) => listing(`/${index}`, `127.0.0.${index + 1}:80`)));
    expect(counting.started).toHaveLength(7);
    expect(counting.most()).toBe(2);
  });

  it("spaces the probes of one host, and runs another host's meanwhile", async () => {
    const store = new MemoryEvidenceStore(new MemoryJournal());
    const counting = countingProbe();
    const prober = createListingProber({ fetch: globalThis.fetch, network, store, probe: counting.probe, concurrency: 4, hostSpacingMs: 60_000 });
    const sameHost = [listing("/a"), listing("/b")];
    const other = listing("/c", "127.0.0.9:80");
    // The second probe of the host would wait a minute: the other host's is done first.
    const first = prober.refresh([sameHost[0]!, other]);
    void prober.refresh([sameHost[1]!]);
    await first;
    expect(counting.started).toEqual([sameHost[0]!.resource, other.resource]);
  });

  it("leaves queued probes beyond its bound for a later discovery", async () => {
    const store = new MemoryEvidenceStore(new MemoryJournal());
    const counting = countingProbe();
    const prober = createListingProber({ fetch: globalThis.fetch, network, store, probe: counting.probe, concurrency: 1, maxQueued: 2, hostSpacingMs: 0 });
    await prober.refresh(Array.from({ length: 5 }, (_, index) => listing(`/${index}`)));
    expect(counting.started.length).toBeLessThanOrEqual(3);
  });

  it("does not leave a live service out on one timeout: it asks again, and the second answer stands", async () => {
    const store = new MemoryEvidenceStore(new MemoryJournal());
    const answers: ProbeFinding[] = [
      { verdict: "unreachable", detail: "no answer within 3000 ms", latencyMs: 3000, transient: true },
      { verdict: "buyable", latencyMs: 40 },
    ];
    let calls = 0;
    const probe = async () => answers[calls++]!;
    const prober = createListingProber({ fetch: globalThis.fetch, network, store, probe, hostSpacingMs: 0, retryDelayMs: 0 });
    await prober.refresh([listing("/slow")]);
    expect(calls).toBe(2);
    expect((await store.probes([listing("/slow").resource])).get(listing("/slow").resource)).toMatchObject({ verdict: "buyable" });
  });

  it("keeps a transient failure seen twice for the short expiry only, and a definitive finding for the long one", async () => {
    let now = 1_000_000;
    const store = new MemoryEvidenceStore(new MemoryJournal(), () => now);
    const findings: Record<string, ProbeFinding> = {
      [listing("/down").resource]: { verdict: "failing", detail: "answers 503 before any payment", latencyMs: 2, transient: true },
      [listing("/dear").resource]: { verdict: "price-above-listing", detail: "asks 0.002 USDC, lists 0.001 USDC", latencyMs: 2 },
    };
    const probed: string[] = [];
    const probe = async (asked: { resource: string }) => {
      probed.push(asked.resource);
      return findings[asked.resource]!;
    };
    const prober = createListingProber({
      fetch: globalThis.fetch,
      network,
      store,
      probe,
      hostSpacingMs: 0,
      retryDelayMs: 0,
      findingTtlMs: 300_000,
      transientTtlMs: 60_000,
    });
    const keys = [listing("/down").resource, listing("/dear").resource];
    await prober.refresh([listing("/down"), listing("/dear")]);
    // The transient one was asked twice, the definitive one once.
    expect(probed.sort()).toEqual([keys[1], keys[0], keys[0]].sort());
    expect([...(await store.probes(keys)).keys()].sort()).toEqual([...keys].sort());
    now += 61_000;
    expect([...(await store.probes(keys)).keys()]).toEqual([keys[1]]);
  });
});
