import "server-only";
/**
 * Who is asking, counted before anything costly: the client address's rate-limit window first
 * (it needs only headers), then the credential (a bad one is 401 whatever the body says), then
 * the named caller's own window, so one caller cannot use up another's. Shared by every door to
 * the agent wallet (`POST /api/chat`, `POST /api/mcp`), so they admit and count alike.
 */
import { callerKey, resolveCaller, type Caller } from "../access/caller";
import { sessionSecretOf } from "../auth/session-secret";
import type { AppDependencies } from "./app-dependencies";
import { clientKeyOf } from "./client-key";
import { enforceRateLimit, type RateLimitOutcome } from "./rate-limit";
import type { GrantRecord } from "../grants/grants";
import { grantOfToken } from "./grant-payer-for";

export type AdmittedCaller = {
  caller: Caller;
  /** The client address's bucket (`ip:…`), also the namespace of an anonymous caller's keys. */
  clientKey: string;
  /** The tightest window counted so far, for the response's RateLimit headers. */
  rateLimit: RateLimitOutcome;
  /** The grant a grant token (`Bearer x402g_…`) named, checked; it proves its wallet, nothing more. */
  tokenGrant: GrantRecord | undefined;
};

export async function admitCaller(request: Request, deps: AppDependencies, arrivedAt: number): Promise<AdmittedCaller> {
  const clientKey = clientKeyOf(request, deps.env);
  let rateLimit = await enforceRateLimit(deps, [clientKey]);
  const caller = await resolveCaller({
    request,
    apiKeys: deps.store.apiKeys,
    sessionSecret: deps.env.SESSION_SECRET ?? (deps.network.name === "local" ? sessionSecretOf(deps.env) : undefined),
    chainId: deps.network.chainId,
    access: deps.settings.access,
    now: arrivedAt,
  });
  const tokenGrant = await grantOfToken(request, deps);
  const ownKey = callerKey(caller);
  if (ownKey) rateLimit = await enforceRateLimit(deps, [ownKey], rateLimit, deps.env.RATE_LIMIT_CALLER_REQUESTS ?? deps.env.RATE_LIMIT_REQUESTS);
  return { caller, clientKey, rateLimit, tokenGrant };
}
