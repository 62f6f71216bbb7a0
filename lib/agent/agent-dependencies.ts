import "server-only";
/**
 * What an agent run needs that outlives one request (network, chain, store, discovery, model,
 * settings), and the purchase path's view of it.
 */
import type { LanguageModel } from "ai";
import type { LocalAccount } from "viem";
import type { PayeePolicy } from "../limits/payee-policy";
import type { LimitSettings, LimitValues } from "../limits/spending-limits-input";
import type { NetworkConfig } from "../network/network-config";
import type { Store } from "../store/store-types";
import type { ChainReader } from "../x402/chain-reader";
import type { DiscoveryClient } from "../x402/discovery-client";
import type { OutboundFetch, PurchaseDependencies } from "./purchase/purchase-types";

export type AgentSettings = {
  deadlineMs: number;
  maxPaymentsPerRequest: number;
  maxSteps: number;
  limitSettings: LimitSettings;
  /** Who may make the agent wallet pay, and the budgets of named callers. */
  access: AccessSettings;
  /** Which payees, assets and networks may be paid at all. */
  payeePolicy?: PayeePolicy;
  temperatures: { payment: number; standard: number; discovery: number };
  approvalTtlSeconds?: number;
  agentAuthorizationTtlSeconds?: number;
  reconcileIntervalMs?: number;
  /** Calls a channel's deposit is sized for (CHANNEL_DEPOSIT_CALLS); the deposit strategy's default when unset. */
  channelDepositCalls?: bigint;
};

export type AccessSettings = {
  /** Who may make the agent wallet pay (AGENT_WALLET_ACCESS). */
  mode: "open" | "authenticated" | "signed-in";
  /** The budget of each signed-in wallet the operator allowed (and of every one where access is open). */
  accountBudget: LimitValues;
  /** Signed-in wallets the operator allowed to spend the agent wallet, lowercase. */
  allowedWallets: readonly string[];
  /** Where access is `signed-in`: each other signed-in wallet's budget, and all of theirs together per day. */
  openSignIn: { budget: LimitValues; dailyCap: bigint };
  /** Base units: what the agent wallet pays per day over every caller together. */
  walletDailyCap: bigint;
};

export type AgentDependencies = {
  network: NetworkConfig;
  fetch: OutboundFetch;
  /** The guarded fetch whose answers stream (MCP's SSE transport); see PurchaseDependencies. */
  openStream?: OutboundFetch;
  chain: ChainReader;
  store: Store;
  discovery: DiscoveryClient;
  quoteSecret: string;
  agentAccount: LocalAccount | undefined;
  model: LanguageModel;
  modelId: string;
  isDemoModel: boolean;
  settings: AgentSettings;
  /** The one clock of the process (epoch ms): deadlines, quotes' validity, the journal's times. */
  now: () => number;
  /**
   * A test's clock for the shared store's day windows (the daily room a caller is shown).
   * Unset, the store cuts them on its own clock (the database's, Redis's), the same for every
   * instance, as it does every reservation.
   */
  storeClock?: () => number;
};

/** The purchase path's view of the agent's dependencies; one place builds it for every purchase. */
export function purchaseDependenciesOf(deps: AgentDependencies): PurchaseDependencies {
  return {
    network: deps.network,
    fetch: deps.fetch,
    openStream: deps.openStream,
    chain: deps.chain,
    ledger: deps.store.ledger,
    quoteSecret: deps.quoteSecret,
    now: deps.now,
    approvalTtlSeconds: deps.settings.approvalTtlSeconds,
    agentAuthorizationTtlSeconds: deps.settings.agentAuthorizationTtlSeconds,
    reconcileIntervalMs: deps.settings.reconcileIntervalMs,
    payeePolicy: deps.settings.payeePolicy,
    hasPaid: (payer, payTo) => deps.store.journal.hasPaid(payer, payTo),
    // The database store's channel ledger; absent elsewhere, and channel offers are then not chosen.
    channels: deps.store.channels,
    ...(deps.settings.channelDepositCalls === undefined ? {} : { channelDepositCalls: deps.settings.channelDepositCalls }),
    log: (entry) => console.error(JSON.stringify(entry)),
  };
}
