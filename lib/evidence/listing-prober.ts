/**
 * Runs unpaid probes (probe-listing.ts) in the background, within bounds: a few at a time, one
 * start per host per spacing (a host listing many services is not hammered), each under its own
 * timeout, and at most one per listing per interval across every instance (the store's claim).
 * A probe's finding goes to the shared store, where every instance reads it. A transient
 * failure (no answer in time, a 5xx) is asked again before it is stored, and then stands for a
 * short while only: one slow answer under load must not drop a live service for minutes.
 */
import type { PayableNetwork } from "../x402/payment-requirements";
import type { EvidenceStore, ProbeFinding } from "./evidence-store";
import { probeListing, PROBE_TIMEOUT_MS, type ProbedListing, type ProbeFetch } from "./probe-listing";

export type ListingProberOptions = {
  fetch: ProbeFetch;
  network: PayableNetwork;
  store: EvidenceStore;
  /** Probes running at once in this process. */
  concurrency?: number;
  /** Between two probe starts at one host (host and port), milliseconds. */
  hostSpacingMs?: number;
  /** A listing is probed at most once per interval, across instances. */
  intervalMs?: number;
  /** How long a finding stands. */
  findingTtlMs?: number;
  /** How long a transient failure (confirmed by a second probe) stands: short, it may have passed. */
  transientTtlMs?: number;
  /** Between a transient failure and the probe that confirms or clears it, milliseconds. */
  retryDelayMs?: number;
  timeoutMs?: number;
  /** Probes waiting to start at most; beyond it a listing waits for the next discovery. */
  maxQueued?: number;
  /** Who claims (kept with the claim, for an operator reading the table). */
  holder?: string;
  probe?: (listing: ProbedListing, timeoutMs: number) => Promise<ProbeFinding>;
};

export type ListingProber = {
  /**
   * Probes these listings unless fresh or claimed elsewhere; resolves when this process's
   * probes of them have reported (or were not run), never rejects.
   */
  refresh(listings: readonly ProbedListing[], timeoutMs?: number): Promise<void>;
};

export const PROBE_DEFAULTS = {
  concurrency: 4,
  hostSpacingMs: 100,
  intervalMs: 60_000,
  findingTtlMs: 5 * 60_000,
  transientTtlMs: 60_000,
  retryDelayMs: 500,
  maxQueued: 200,
} as const;

export function createListingProber(options: ListingProberOptions): ListingProber {
  const concurrency = options.concurrency ?? PROBE_DEFAULTS.concurrency;
  const hostSpacingMs = options.hostSpacingMs ?? PROBE_DEFAULTS.hostSpacingMs;
  const intervalMs = options.intervalMs ?? PROBE_DEFAULTS.intervalMs;
  const findingTtlMs = options.findingTtlMs ?? PROBE_DEFAULTS.findingTtlMs;
  const transientTtlMs = options.transientTtlMs ?? PROBE_DEFAULTS.transientTtlMs;
  const retryDelayMs = options.retryDelayMs ?? PROBE_DEFAULTS.retryDelayMs;
  const maxQueued = options.maxQueued ?? PROBE_DEFAULTS.maxQueued;
  const probe = options.probe ?? ((listing, timeoutMs) => probeListing(options.fetch, listing, options.network, timeoutMs));
  /** This process's probes, by listing: a second discovery waits for the same one. */
  const inFlight = new Map<string, Promise<void>>();
  const queue: { host: string; start: () => void }[] = [];
  const nextStartAt = new Map<string, number>();
  let running = 0;
  let timer: ReturnType<typeof setTimeout> | undefined;

  function pump(): void {
    timer = undefined;
    const now = Date.now();
    // Hosts whose spacing has passed need no entry: the map holds recent hosts only.
    for (const [host, at] of nextStartAt) if (at <= now) nextStartAt.delete(host);
    let soonest = Infinity;
    for (let index = 0; index < queue.length && running < concurrency;) {
      const task = queue[index]!;
      const at = nextStartAt.get(task.host) ?? 0;
      if (at > now) {
        soonest = Math.min(soonest, at);
        index += 1;
        continue;
      }
      queue.splice(index, 1);
      nextStartAt.set(task.host, now + hostSpacingMs);
      running += 1;
      task.start();
    }
    if (queue.length > 0 && running < concurrency && soonest !== Infinity) {
      // A waiting host's next start; unref'd, so queued probes never keep a process alive.
      timer ??= setTimeout(pump, soonest - now);
      timer.unref?.();
    }
  }

  function schedule(listing: ProbedListing, timeoutMs: number): Promise<void> {
    const pending = inFlight.get(listing.resource);
    if (pending) return pending;
    if (queue.length >= maxQueued) return Promise.resolve();
    const done = new Promise<void>((resolve) => {
      queue.push({
        host: hostOf(listing.resource),
        start: () =>
          void run(listing, timeoutMs).finally(() => {
            inFlight.delete(listing.resource);
            finished();
            resolve();
          }),
      });
    });
    inFlight.set(listing.resource, done);
    pump();
    return done;
  }

  function finished(): void {
    running -= 1;
    pump();
  }

  async function run(listing: ProbedListing, timeoutMs: number): Promise<void> {
    try {
      if (!(await options.store.claimProbe(listing.resource, intervalMs, options.holder))) return;
      let finding = await probe(listing, timeoutMs);
      // One timeout or 5xx is not enough to leave a live service out: ask again, and believe a
      // failure seen twice in a row, for a short while only. A definitive finding stands as it is.
      if (finding.transient) {
        await sleep(retryDelayMs);
        finding = await probe(listing, timeoutMs);
      }
      await options.store.recordProbe(listing.resource, finding, finding.transient ? transientTtlMs : findingTtlMs);
    } catch {
      // A store or probe failure leaves the listing without a finding: it is asked again later.
    }
  }

  return {
    async refresh(listings, timeoutMs = options.timeoutMs ?? PROBE_TIMEOUT_MS) {
      await Promise.all(listings.map((listing) => schedule(listing, timeoutMs)));
    },
  };
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

function hostOf(resource: string): string {
  try {
    return new URL(resource).host;
  } catch {
    return resource;
  }
}
