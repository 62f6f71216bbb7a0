import "server-only";
/**
 * The composition root: everything a request to any door needs that outlives it (network,
 * store, chain reader, discovery cache, model client, clock), built once per process from the
 * environment and handed to every route (chat, MCP, sign-in, payments, cron, suggestions).
 * Tests build their own with `createAppDependencies`.
 */
import { createBaseModel, type BaseModel } from "../agent/model/create-chat-model";
import { startReconcilerTimer } from "../agent/purchase/reconciler-timer";
import { localAccount } from "../crypto/secp256k1";
import type { AppDependencies } from "../doors/app-dependencies";
import { reconcileOnce } from "../doors/reconcile-once";
import { getEnv, type Env } from "../env";
import { AppError } from "../errors";
import { withEvidence } from "../evidence/evidence-discovery";
import { createGrantFunds } from "../grants/grant-funds";
import { createGrantPayers, type GrantPayerOptions } from "../grants/grant-payer";
import { payerKeyOf } from "../grants/payer-key";
import { createListingProber } from "../evidence/listing-prober";
import { payeePolicyOf } from "../limits/payee-policy";
import { createGuardedFetch } from "../net/guarded-fetch";
import { infrastructureUrls, networkConfigFromEnv, type NetworkConfig } from "../network/network-config";
import { getStore } from "../store/create-store";
import type { Store } from "../store/store-types";
import { createChainReader } from "../x402/chain-reader";
import { createDiscoveryClient } from "../x402/discovery-client";
import { createListingJudge } from "../x402/uncallable-listings";

/** A fixed secret for the local world only; every other network requires QUOTE_SECRET. */
const LOCAL_QUOTE_SECRET = "local-devnet-quote-secret-not-for-production-use";

export type AppDependencyOverrides = {
  network?: NetworkConfig;
  store?: Store;
  baseModel?: BaseModel;
  now?: () => number;
};

export function createAppDependencies(env: Env, overrides: AppDependencyOverrides = {}): AppDependencies {
  const network = overrides.network ?? networkConfigFromEnv(env);
  const infrastructure = infrastructureUrls(network);
  // Two fetches, both guarded: services are never the network's own servers; discovery must
  // reach the facilitator (and only needs it), so it is its one extra host, and the chain's RPC
  // stays refused to it.
  const serviceFetch = createGuardedFetch({ allowlist: network.outboundAllowlist, infrastructure, timeoutMs: env.OUTBOUND_TIMEOUT_MS });
  const discoveryFetch = createGuardedFetch({
    allowlist: [...network.outboundAllowlist, new URL(network.facilitatorUrl).host],
    infrastructure: infrastructure.filter((url) => new URL(url).origin !== new URL(network.facilitatorUrl).origin),
    timeoutMs: env.OUTBOUND_TIMEOUT_MS,
  });
  const fetch = (input: string, init?: RequestInit) => serviceFetch(input, init);
  // An MCP server's SSE event stream lives as long as its session: the same rules, its bounds
  // over the whole stream, and no longer than a chat turn.
  const serviceStream = createGuardedFetch({ allowlist: network.outboundAllowlist, infrastructure, timeoutMs: env.CHAT_DEADLINE_MS, body: "streamed" });
  const quoteSecret = env.QUOTE_SECRET ?? (network.name === "local" ? LOCAL_QUOTE_SECRET : undefined);
  if (!quoteSecret) throw new AppError("unavailable:not_configured", { details: "QUOTE_SECRET is not set" });
  const store = overrides.store ?? getStore();
  // The one clock of the process: every module below reads time through it, so a test's
  // clock reaches them all.
  const now = overrides.now ?? Date.now;
  const relayerKey = env.GRANT_RELAYER_PRIVATE_KEY ?? network.agentPrivateKey;
  return {
    grantPayer: relayerKey ? grantPayersOf(network, store, relayerKey, { now, storeNow: overrides.now }) : undefined,
    grantAccountOf: relayerKey ? (wallet) => localAccount(payerKeyOf(relayerKey, network.chainId, wallet)).address : undefined,
    env,
    network,
    fetch,
    openStream: (input: string, init?: RequestInit) => serviceStream(input, init),
    chain: createChainReader({ rpcUrl: network.rpcUrl, usdc: network.usdc }),
    // One store per process (Redis when REDIS_URL is set); refused on Vercel without Redis.
    store,
    // Only what can be bought, ranked by evidence (lib/evidence): unpaid probes through the
    // service fetch, findings and our payments' outcomes shared through the store.
    discovery: withEvidence(
      createDiscoveryClient({
        facilitatorUrl: network.facilitatorUrl,
        network,
        fetch: (input, init) => discoveryFetch(input, init),
        now,
        // What the service fetch would refuse, and this app itself (APP_URL), is never listed.
        judge: createListingJudge({ allowlist: network.outboundAllowlist, infrastructure, ownOrigins: env.APP_URL ? [env.APP_URL] : [] }),
      }),
      {
        store: store.evidence,
        prober: env.DISCOVERY_PROBES === false ? undefined : createListingProber({ fetch, network, store: store.evidence }),
        waitBudgetMs: env.DISCOVERY_PROBE_BUDGET_MS,
      },
    ),
    quoteSecret,
    agentAccount: network.agentPrivateKey ? localAccount(network.agentPrivateKey) : undefined,
    baseModel:
      overrides.baseModel ??
      createBaseModel({ apiKey: env.OPENAI_API_KEY, baseUrl: env.OPENAI_BASE_URL, modelId: env.MODEL, demoChunkDelayMs: env.DEMO_MODEL_CHUNK_DELAY_MS }),
    get model() {
      return this.baseModel.model;
    },
    get modelId() {
      return this.baseModel.modelId;
    },
    get isDemoModel() {
      return this.baseModel.isDemo;
    },
    settings: {
      deadlineMs: env.CHAT_DEADLINE_MS,
      maxPaymentsPerRequest: env.MAX_PAYMENTS_PER_REQUEST,
      maxSteps: env.MAX_AGENT_STEPS,
      limitSettings: {
        defaults: { perPayment: env.LIMIT_DEFAULT_PER_PAYMENT, perRequest: env.LIMIT_DEFAULT_PER_REQUEST, daily: env.LIMIT_DEFAULT_DAILY },
        caps: { perPayment: env.LIMIT_MAX_PER_PAYMENT, perRequest: env.LIMIT_MAX_PER_REQUEST, daily: env.LIMIT_MAX_DAILY },
      },
      access: {
        // Open on the local world (test money), for named callers only anywhere else.
        mode: env.AGENT_WALLET_ACCESS ?? (network.name === "local" ? "open" : "authenticated"),
        accountBudget: { perPayment: env.SIGNED_IN_BUDGET_PER_PAYMENT, perRequest: env.SIGNED_IN_BUDGET_PER_REQUEST, daily: env.SIGNED_IN_BUDGET_DAILY },
        allowedWallets: env.AGENT_WALLET_ALLOWED_WALLETS,
        openSignIn: {
          budget: { perPayment: env.OPEN_SIGN_IN_BUDGET_PER_PAYMENT, perRequest: env.OPEN_SIGN_IN_BUDGET_PER_REQUEST, daily: env.OPEN_SIGN_IN_BUDGET_DAILY },
          dailyCap: env.OPEN_SIGN_IN_DAILY_CAP,
        },
        walletDailyCap: env.AGENT_WALLET_DAILY_CAP ?? env.LIMIT_MAX_DAILY,
      },
      payeePolicy: payeePolicyOf(env),
      temperatures: { payment: env.TEMPERATURE_PAYMENT, standard: env.TEMPERATURE_DEFAULT, discovery: env.TEMPERATURE_DISCOVERY },
      approvalTtlSeconds: env.APPROVAL_TTL_SECONDS,
      agentAuthorizationTtlSeconds: env.AGENT_AUTHORIZATION_TTL_SECONDS,
      channelDepositCalls: BigInt(env.CHANNEL_DEPOSIT_CALLS),
    },
    now,
    // Only a test's clock reaches the store's day windows; unset, the store's own clock cuts them.
    storeClock: overrides.now,
  };
}

let cached: AppDependencies | undefined;

/**
 * The process's dependencies; a failure (e.g. the local world not running) is retried next
 * time. The first success also starts the reconciler's timer, except on Vercel (cron route).
 */
export function getAppDependencies(): AppDependencies {
  if (cached) return cached;
  const deps = createAppDependencies(getEnv());
  cached = deps;
  startReconcilerFor(deps);
  return deps;
}

/**
 * Runs the reconciler (payments left undecided, then the float of ended grants) on a timer,
 * except on Vercel (its cron route does) or when turned off.
 */
export function startReconcilerFor(deps: AppDependencies): void {
  if (!deps.env.VERCEL && deps.env.RECONCILE_INTERVAL_SECONDS > 0) {
    startReconcilerTimer(() => reconcileOnce(deps), deps.env.RECONCILE_INTERVAL_SECONDS * 1000);
  }
}

/** Grants as payers: each wallet's payer key, funded by the relayer's pulls under its grant. */
function grantPayersOf(network: NetworkConfig, store: Store, relayerPrivateKey: `0x${string}`, clocks: Pick<GrantPayerOptions, "now" | "storeNow">) {
  const funds = createGrantFunds({
    rpcUrl: network.rpcUrl,
    chainId: network.chainId,
    usdc: network.usdc,
    relayerPrivateKey,
    usdcName: network.usdcName,
    usdcVersion: network.usdcVersion,
  });
  const reservedFor = async (payer: `0x${string}`) => (await store.ledger.spentToday(payer)).reserved;
  // Only a test's clock reaches the store's decision that a grant ended, as with `storeClock`.
  return createGrantPayers({ relayerPrivateKey, chainId: network.chainId, grants: store.grants, funds, reservedFor, ...clocks });
}
