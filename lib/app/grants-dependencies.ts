import "server-only";
/**
 * What the grant endpoints need, from the process's dependencies: the store's grants and
 * ledger, the relayer (GRANT_RELAYER_PRIVATE_KEY, else the agent wallet's key) and its chain,
 * sign-in sessions of this chain, and the per-client rate limit. Built once per dependency set.
 */
import { sessionOf } from "../auth/session-cookie";
import { sessionSecretOf } from "../auth/session-secret";
import { localAccount } from "../crypto/secp256k1";
import { createGrantChain } from "../grants/grant-chain";
import type { GrantsDependencies } from "../grants/handle-grants-request";
import type { AppDependencies } from "../doors/app-dependencies";
import { clientKeyOf } from "../doors/client-key";
import { enforceRateLimit } from "../doors/rate-limit";

const built = new WeakMap<AppDependencies, GrantsDependencies>();

export function grantsDependenciesOf(deps: AppDependencies): GrantsDependencies {
  const known = built.get(deps);
  if (known) return known;
  const { env, network, store } = deps;
  const relayerKey = env.GRANT_RELAYER_PRIVATE_KEY ?? network.agentPrivateKey;
  const now = deps.now;
  const made: GrantsDependencies = {
    grants: store.grants,
    spentInScope: (key) => store.ledger.spentInScope(key),
    grantChain: relayerKey
      ? {
          chain: createGrantChain({ rpcUrl: network.rpcUrl, chainId: network.chainId, usdc: network.usdc, relayerPrivateKey: relayerKey }),
          policy: { chainId: network.chainId, usdc: network.usdc, relayer: localAccount(relayerKey).address, maxAmount: env.GRANT_MAX_AMOUNT },
        }
      : undefined,
    sessionWallet(request) {
      const session = sessionOf(request, sessionSecretOf(env), now());
      return session && session.chainId === network.chainId ? session.address : undefined;
    },
    payerAccountOf: deps.grantAccountOf,
    returnFloat: deps.grantPayer ? (grant) => deps.grantPayer!(grant).funding.returnIdleFloat() : undefined,
    async admit(request) {
      await enforceRateLimit({ store, env }, [`grants:${clientKeyOf(request, env)}`]);
    },
    now,
  };
  built.set(deps, made);
  return made;
}
