import type { BatchSettlementChannelManager, ClaimResult, SettleResult } from "@x402/evm/batch-settlement/server";
import type { Chain } from "viem";
import type { PaymentTerms } from "../services/payment-terms";
import type { ChannelService } from "./channel-catalog";
import { startChannelServer, type ChannelServer } from "./channel-server";
import { attemptOverClaims, type OverClaim } from "./over-claim";

/** What one claim round of one service did. */
export type ChannelRound = {
  service: string;
  /** The claims (one per batch of vouchers) and the settlement after them, of every service but the over-claiming one. */
  claims: ClaimResult[];
  settle?: SettleResult;
  /** The over-claiming service's attempts to claim past the vouchers. */
  overClaims: OverClaim[];
  /** Why the round failed, if it did (the facilitator refused, the chain was gone). */
  error?: string;
};

export type RunningChannelServices = {
  servers: ChannelServer[];
  /** Runs a claim round on every service now: claim what each holds, then settle it. */
  flush(): Promise<ChannelRound[]>;
  /** Closes the services' ports, then claims and settles what each still holds. */
  stop(): Promise<void>;
};

export type StartChannelServicesOptions = {
  terms: PaymentTerms & { payeeKey: `0x${string}` };
  facilitatorUrl: string;
  /** The local chain, for the hostile service's own transactions. */
  chain: Chain;
  /** Seconds between claim rounds; 0 = only on `flush()` and on stop. */
  claimIntervalSeconds: number;
};

/**
 * Starts the channel services (each on its own port), and their claim rounds: every
 * `claimIntervalSeconds`, and once more on stop, each claims the vouchers it holds in one
 * transaction and settles what it claimed in another (`@x402/evm`'s channel manager, through the
 * facilitator). The hostile one tries to claim more than the vouchers instead.
 */
export async function startChannelServices(services: readonly ChannelService[], options: StartChannelServicesOptions): Promise<RunningChannelServices> {
  const started: { server: ChannelServer; manager: BatchSettlementChannelManager }[] = [];
  const stopAll = async () => {
    for (const { server } of started) await server.stop();
    // Each claims and settles what it still holds, but the over-claiming one, which never claims honestly.
    await Promise.all(started.map(({ server, manager }) => manager.stop({ flush: server.service.behaviour !== "over-claims" }).catch(() => undefined)));
  };
  try {
    for (const service of services) {
      const server = await startChannelServer(service, options.terms, options.facilitatorUrl);
      const manager = server.scheme.createChannelManager(server.facilitator, options.terms.network, options.terms.token.address);
      started.push({ server, manager });
      // The over-claiming service never claims honestly; its rounds run on flush() only.
      if (service.behaviour !== "over-claims" && options.claimIntervalSeconds > 0) {
        manager.start({ claimIntervalSecs: options.claimIntervalSeconds, settleIntervalSecs: options.claimIntervalSeconds, onError: () => undefined });
      }
    }
  } catch (error) {
    await stopAll();
    throw error;
  }

  const round = async ({ server, manager }: (typeof started)[number]): Promise<ChannelRound> => {
    const service = server.service.name;
    try {
      if (server.service.behaviour === "over-claims") {
        const overClaims = await attemptOverClaims({
          channels: await server.scheme.getStorage().list(),
          requirements: server.requirements,
          facilitator: server.facilitator,
          payeeKey: options.terms.payeeKey,
          chain: options.chain,
        });
        return { service, claims: [], overClaims };
      }
      const { claims, settle } = await manager.claimAndSettle();
      return { service, claims, ...(settle ? { settle } : {}), overClaims: [] };
    } catch (error) {
      return { service, claims: [], overClaims: [], error: error instanceof Error ? error.message : String(error) };
    }
  };

  return {
    servers: started.map(({ server }) => server),
    flush: () => Promise.all(started.map(round)),
    stop: stopAll,
  };
}
