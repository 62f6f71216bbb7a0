import type { Env } from "../env";
import type { NetworkConfig } from "../network/network-config";
import type { Store } from "../store/store-types";

/** What the sign-in routes need; the chat's dependencies provide it. */
export type AuthDependencies = {
  env: Pick<Env, "SESSION_SECRET" | "X402_NETWORK">;
  network: Pick<NetworkConfig, "chainId">;
  store: Pick<Store, "idempotency">;
  now?: () => number;
};
