/**
 * 1. Payment overhead: the agent's own purchase path (`runPurchase`, wired exactly as the chat
 * route wires it: guarded fetch, chain reader, memory ledger, stream writer) against the bare
 * official client (`@x402/fetch` `wrapFetchWithPayment` + `@x402/evm` exact scheme) paying the
 * same demo service from the same wallet, interleaved pair by pair (the order alternates).
 * Each side's time is split into the phases around it, so that a difference has an address.
 */
import { x402Client } from "@x402/core/client";
import { registerExactEvmScheme } from "@x402/evm/exact/client";
import { decodePaymentResponseHeader, wrapFetchWithPayment } from "@x402/fetch";
import type { LocalAccount } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { PaymentTracker } from "../../lib/agent/purchase/payment-tracker";
import { localAccount } from "../../lib/crypto/secp256k1";
import { runPurchase, type PurchaseDependencies } from "../../lib/agent/purchase/run-purchase";
import { StreamWriter } from "../../lib/stream";
import type { ChatHarness } from "../../tests/support/chat-harness";
import { summarize, type Summary } from "./stats";
import { PhaseTimer } from "./timed";

export const OURS_PHASES = ["402 request", "balance read", "ledger reserve", "sign", "paid request", "ledger commit", "our code (rest)"] as const;
export const BARE_PHASES = ["402 request", "sign", "paid request", "client code (rest)"] as const;

export type OverheadResult = {
  service: string;
  url: string;
  iterations: number;
  ours: Summary;
  bare: Summary;
  /** median(ours) / median(bare). */
  ratio: number;
  /** ours − bare within each interleaved pair: the overhead in ms, robust to slow minutes of the machine. */
  pairedDifference: Summary;
  /** Medians of each phase, per side. */
  oursPhases: Record<string, Summary>;
  barePhases: Record<string, Summary>;
  errors: { ours: number; bare: number; firstError?: string };
};

function hasPaymentHeader(input: string | URL | Request, init?: RequestInit): boolean {
  const headers = input instanceof Request ? input.headers : new Headers(init?.headers);
  return headers.has("payment-signature") || headers.has("x-payment");
}

export async function measurePaymentOverhead(
  harness: ChatHarness,
  options: { iterations: number; warmup: number; serviceName?: string; log: (line: string) => void },
): Promise<OverheadResult> {
  const serviceName = options.serviceName ?? "weather";
  const service = harness.devnet.services.find((candidate) => candidate.name === serviceName);
  if (!service) throw new Error(`the local world has no ${serviceName} service`);
  const url = `${service.url}?${new URLSearchParams(service.queryParams).toString()}`;
  const agentKey = harness.devnet.accounts.agent.privateKey as `0x${string}`;
  const { deps } = harness;

  // Ours: the route's own dependencies, with timing wrappers around what runPurchase awaits.
  const oursTimer = new PhaseTimer();
  // Each side signs as it would in use: ours with the account the route builds (native when
  // the binding loads), the bare client with viem's own account.
  const agent = localAccount(agentKey);
  const bareAgent = privateKeyToAccount(agentKey);
  const timedAgent: LocalAccount = { ...agent, signTypedData: (parameters) => oursTimer.time("sign", () => agent.signTypedData(parameters)) };
  const purchaseDeps: PurchaseDependencies = {
    network: deps.network,
    fetch: (input, init) => oursTimer.time(hasPaymentHeader(input, init) ? "paid request" : "402 request", () => deps.fetch(input, init)),
    chain: { ...deps.chain, balanceOf: (owner) => oursTimer.time("balance read", () => deps.chain.balanceOf(owner)) },
    ledger: {
      reserve: (input) => oursTimer.time("ledger reserve", () => deps.store.ledger.reserve(input)),
      commit: (id, commitOptions) => oursTimer.time("ledger commit", () => deps.store.ledger.commit(id, commitOptions)),
      release: (id) => deps.store.ledger.release(id),
      spentToday: (payer, clock) => deps.store.ledger.spentToday(payer, clock),
      entries: (payer, clock) => deps.store.ledger.entries(payer, clock),
      spentInScope: (key, clock) => deps.store.ledger.spentInScope(key, clock),
    },
    quoteSecret: deps.quoteSecret,
    now: deps.now,
    agentAuthorizationTtlSeconds: deps.settings.agentAuthorizationTtlSeconds,
  };
  const limits = { perPayment: 1_000_000n, perRequest: 2_000_000n, daily: 1_000_000_000_000n };
  let sequence = 0;

  const ours = async (): Promise<{ ms: number; error?: string }> => {
    const writer = new StreamWriter({ framing: "plain", keepAliveMs: 0 });
    void writer.readable.pipeTo(new WritableStream()).catch(() => undefined);
    const tracker = new PaymentTracker(writer);
    sequence += 1;
    const started = performance.now();
    const outcome = await runPurchase(purchaseDeps, {
      service: service.name,
      url,
      method: "GET",
      intent: `bench-overhead-${process.pid}-${sequence}`,
      payer: { kind: "agent", account: timedAgent },
      limits,
      maxPayments: 3,
      tracker,
      deadline: Date.now() + 45_000,
    });
    const elapsed = performance.now() - started;
    return outcome.status === "delivered"
      ? { ms: elapsed }
      : { ms: elapsed, error: `runPurchase: ${outcome.status} ${"message" in outcome ? outcome.message : ""}` };
  };

  // Bare: the official client over the platform fetch, same wallet, same service.
  const bareTimer = new PhaseTimer();
  // The local USDC is not one of the library's default assets: allow it by name, as an integrator would.
  const client = x402Client.fromConfig({
    schemes: [],
    spendControls: { allowedAssets: [{ network: harness.devnet.network as `${string}:${string}`, asset: harness.devnet.usdc }] },
  });
  registerExactEvmScheme(client, {
    signer: {
      address: bareAgent.address,
      signTypedData: (message) => bareTimer.time("sign", () => bareAgent.signTypedData(message as Parameters<typeof bareAgent.signTypedData>[0])),
    },
  });
  const timedFetch: typeof fetch = (input, init) =>
    bareTimer.time(hasPaymentHeader(input as string | URL | Request, init) ? "paid request" : "402 request", () => fetch(input, init));
  const payingFetch = wrapFetchWithPayment(timedFetch, client);
  const bare = async (): Promise<{ ms: number; error?: string }> => {
    const started = performance.now();
    try {
      const response = await payingFetch(url, { method: "GET", headers: { accept: "application/json" } });
      const header = response.headers.get("payment-response");
      const body = await response.text();
      const elapsed = performance.now() - started;
      if (!response.ok) return { ms: elapsed, error: `bare: HTTP ${response.status} ${body.slice(0, 120)}` };
      const settlement = header ? decodePaymentResponseHeader(header) : undefined;
      if (!settlement?.success || !settlement.transaction) return { ms: elapsed, error: "bare: no successful settlement in PAYMENT-RESPONSE" };
      return { ms: elapsed };
    } catch (error) {
      return { ms: performance.now() - started, error: `bare: ${error instanceof Error ? error.message : String(error)}` };
    }
  };

  for (let index = 0; index < options.warmup; index++) {
    await ours();
    oursTimer.discardSample();
    await bare();
    bareTimer.discardSample();
  }

  const oursTimes: number[] = [];
  const bareTimes: number[] = [];
  const differences: number[] = [];
  const restSamples = { ours: [] as number[], bare: [] as number[] };
  const errors = { ours: 0, bare: 0, firstError: undefined as string | undefined };
  const record = (side: "ours" | "bare", result: { ms: number; error?: string }): number | undefined => {
    const timer = side === "ours" ? oursTimer : bareTimer;
    if (result.error) {
      errors[side] += 1;
      errors.firstError ??= result.error;
      timer.discardSample();
      return undefined;
    }
    (side === "ours" ? oursTimes : bareTimes).push(result.ms);
    const phases = side === "ours" ? OURS_PHASES : BARE_PHASES;
    const sample = timer.endSample(phases.slice(0, -1));
    restSamples[side].push(result.ms - Object.values(sample).reduce((sum, value) => sum + value, 0));
    return result.ms;
  };

  for (let index = 0; index < options.iterations; index++) {
    // A, B then B, A: neither side always runs first.
    let pair: [number | undefined, number | undefined];
    if (index % 2 === 0) {
      const a = record("ours", await ours());
      pair = [a, record("bare", await bare())];
    } else {
      const b = record("bare", await bare());
      pair = [record("ours", await ours()), b];
    }
    if (pair[0] !== undefined && pair[1] !== undefined) differences.push(pair[0] - pair[1]);
    if ((index + 1) % 25 === 0) options.log(`  payment overhead: ${index + 1}/${options.iterations} pairs`);
  }

  const phaseSummaries = (timer: PhaseTimer, phases: readonly string[], rest: number[]) =>
    Object.fromEntries(phases.map((phase, index) => [phase, summarize(index === phases.length - 1 ? rest : timer.samples(phase))]));
  const oursSummary = summarize(oursTimes);
  const bareSummary = summarize(bareTimes);
  return {
    service: service.name,
    url,
    iterations: options.iterations,
    ours: oursSummary,
    bare: bareSummary,
    ratio: oursSummary.median / bareSummary.median,
    pairedDifference: summarize(differences),
    oursPhases: phaseSummaries(oursTimer, OURS_PHASES, restSamples.ours),
    barePhases: phaseSummaries(bareTimer, BARE_PHASES, restSamples.bare),
    errors,
  };
}
