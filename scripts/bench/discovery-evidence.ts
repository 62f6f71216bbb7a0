/**
 * `npm run bench:evidence`: what evidence adds to a discovery, and so to a chat turn, on the
 * local world with the embedded database (lib/evidence). The Bazaar's own answer is cached
 * first, so only evidence is timed: reading findings and outcomes, and, when no instance has
 * checked the first listings yet, waiting (at most DISCOVERY_PROBE_BUDGET_MS) for their unpaid
 * probes. Three cases, ROUNDS each: "cold" (findings cleared: the turn waits for probes),
 * "warm" (fresh findings: two reads), and "off" (DISCOVERY_PROBES=false: outcomes only).
 */
import { sql } from "kysely";
import { startDevnet } from "../../devnet";
import { withEvidence } from "../../lib/evidence/evidence-discovery";
import { createListingProber } from "../../lib/evidence/listing-prober";
import { parseEnv } from "../../lib/env";
import { createGuardedFetch } from "../../lib/net/guarded-fetch";
import { infrastructureUrls, networkConfigFromDevnet } from "../../lib/network/network-config";
import { createDatabaseStore, lazyDatabase } from "../../lib/store/create-database-store";
import { createDiscoveryClient } from "../../lib/x402/discovery-client";
import { median, ms, percentile } from "./stats";

const ROUNDS = 30;
const QUERIES = ["weather", "crypto price", "news", "translate"];

async function main(): Promise<void> {
  const devnet = await startDevnet({});
  const database = lazyDatabase({ kind: "pglite" });
  try {
    const env = parseEnv({});
    const network = networkConfigFromDevnet(devnet, env);
    const fetch = createGuardedFetch({ allowlist: network.outboundAllowlist, infrastructure: infrastructureUrls(network), timeoutMs: env.OUTBOUND_TIMEOUT_MS });
    const discoveryFetch = createGuardedFetch({
      allowlist: [...network.outboundAllowlist, new URL(network.facilitatorUrl).host],
      infrastructure: [],
      timeoutMs: env.OUTBOUND_TIMEOUT_MS,
    });
    const inner = createDiscoveryClient({
      now: Date.now,
      facilitatorUrl: network.facilitatorUrl,
      network,
      fetch: (input, init) => discoveryFetch(input, init),
      cacheTtlMs: 3_600_000,
    });
    const store = createDatabaseStore(database);
    const { db } = await database.open();
    const probing = withEvidence(inner, {
      store: store.evidence,
      prober: createListingProber({ fetch, network, store: store.evidence }),
      waitBudgetMs: env.DISCOVERY_PROBE_BUDGET_MS,
    });
    const outcomesOnly = withEvidence(inner, { store: store.evidence });
    for (const query of QUERIES) await inner.find(query);
    const samples: Record<"cold" | "warm" | "off", number[]> = { cold: [], warm: [], off: [] };
    const timed = async (run: () => Promise<unknown>) => {
      const started = performance.now();
      await run();
      return performance.now() - started;
    };
    for (let round = 0; round < ROUNDS; round += 1) {
      const query = QUERIES[round % QUERIES.length]!;
      // Nobody has checked anything: the claims and findings of every instance are gone.
      await sql`DELETE FROM listing_evidence`.execute(db);
      samples.cold.push(await timed(() => probing.find(query)));
      // Let the background probes of the rest finish, so "warm" reads what they stored.
      await new Promise((resolve) => setTimeout(resolve, 300));
      samples.warm.push(await timed(() => probing.find(query)));
      samples.off.push(await timed(() => outcomesOnly.find(query)));
    }
    const line = (name: string, values: number[]) => `| ${name} | ${ms(median(values))} | ${ms(percentile(values, 95))} | ${ms(Math.max(...values))} |`;
    console.log(
      [
        `Evidence added to one discovery (${ROUNDS} rounds, embedded database, budget ${env.DISCOVERY_PROBE_BUDGET_MS} ms):`,
        "",
        "| case | median | p95 | max |",
        "|---|---|---|---|",
        line("cold: no finding yet, waits for the first listings' probes", samples.cold),
        line("warm: fresh findings (two reads)", samples.warm),
        line("probes off: outcomes only (one read)", samples.off),
      ].join("\n"),
    );
  } finally {
    await database.close();
    await devnet.stop();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
