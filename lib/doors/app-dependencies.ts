/**
 * What every door (`POST /api/chat`, `POST /api/mcp`, the sign-in, payments and cron routes)
 * is handed: the agent's dependencies, the model and the configuration. Declared here, below the
 * doors, so each door can name it; built once per process by the composition root
 * (`lib/app/create-app-dependencies.ts`), and by tests with their own store, clock and model.
 */
import type { AgentDependencies } from "../agent/agent-dependencies";
import type { BaseModel } from "../agent/model/create-chat-model";
import { createWithdrawalChain } from "../agent/purchase/channels/channel-withdrawal-chain";
import type { ChannelWithdrawalDependencies } from "../agent/purchase/channels/withdraw-channels";
import type { ReconcileDependencies } from "../agent/purchase/reconcile-pending";
import type { Env } from "../env";
import type { GrantPayer } from "../grants/grant-payer";
import type { GrantRecord } from "../grants/grants";

export type AppDependencies = AgentDependencies & {
  baseModel: BaseModel;
  env: Env;
  /**
   * A grant as a payer (its payer key, funded by pulls under the grant); absent where no relayer
   * key is configured, and then grants pay nothing.
   */
  grantPayer?: (grant: GrantRecord) => GrantPayer;
  /** The account that pays under a wallet's grants (its payer key's address). */
  grantAccountOf?: (wallet: `0x${string}`) => `0x${string}`;
};

/** What the reconciler needs, from the app's dependencies (shared by the timer and the cron route). */
export function reconcileDependenciesOf(deps: AppDependencies): ReconcileDependencies {
  const { channels } = deps.store;
  const channelRefunds =
    channels && deps.agentAccount
      ? { channels, account: deps.agentAccount, chain: deps.chain, fetch: deps.fetch, idleMs: deps.env.CHANNEL_IDLE_REFUND_SECONDS * 1000 }
      : undefined;
  return { chain: deps.chain, ledger: deps.store.ledger, journal: deps.store.journal, now: deps.now, ...(channelRefunds ? { channelRefunds } : {}) };
}

/** The payer's own withdrawals: the agent wallet sends them, so only where it and a channel ledger exist. */
export function channelWithdrawalsOf(deps: AppDependencies): ChannelWithdrawalDependencies | undefined {
  const { channels } = deps.store;
  const key = deps.network.agentPrivateKey;
  if (!channels || !key || !deps.agentAccount) return undefined;
  const { rpcUrl, chainId, usdc } = deps.network;
  return {
    channels,
    account: deps.agentAccount,
    chain: createWithdrawalChain({ rpcUrl, chainId, usdc, relayerPrivateKey: key }),
    failures: deps.env.CHANNEL_WITHDRAW_AFTER_FAILURES,
  };
}
