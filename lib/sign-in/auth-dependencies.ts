import type { Env } from "../env";
import type { NetworkConfig } from "../network/network-config";
import type { Store } from "../store/store-types";

/** What the sign-in routes need; the app's dependencies (`lib/app/create-app-dependencies.ts`) provide it. */
export type AuthDependencies = {
  env: Pick<
    Env,
    | "SESSION_SECRET"
    | "X402_NETWORK"
    | "APP_URL"
    | "SIGN_IN_RATE_LIMIT_REQUESTS"
    | "RATE_LIMIT_REQUESTS"
    | "RATE_LIMIT_WINDOW_SECONDS"
    | "TRUST_PROXY_HEADERS"
    | "TRUST_PROXY_HOPS"
    | "VERCEL"
  >;
  network: Pick<NetworkConfig, "chainId">;
  store: Pick<Store, "idempotency" | "rateLimiter">;
  now: () => number;
};
