import "server-only";
/**
 * Calls to URLs no discovery listed: only for callers who may spend the agent wallet (anyone,
 * where access is open), and each one counted in the caller's own window (the client
 * address's, for an anonymous caller), so the server cannot be used as a free relay.
 */
import { callerKey, mayCallUnlisted, type Caller } from "../access/caller";
import type { UnlistedCalls } from "../agent/agent-run-types";
import type { AppDependencies } from "./app-dependencies";
import { enforceRateLimit } from "./rate-limit";

export function unlistedCallsOf(deps: AppDependencies, caller: Caller, clientKey: string): UnlistedCalls {
  const key = callerKey(caller) ?? clientKey;
  const limit = caller.kind === "anonymous" ? deps.env.RATE_LIMIT_REQUESTS : (deps.env.RATE_LIMIT_CALLER_REQUESTS ?? deps.env.RATE_LIMIT_REQUESTS);
  return {
    allowed: mayCallUnlisted(caller, deps.settings.access.mode),
    count: () =>
      // Over the limit, or the store unreachable: not called (fail closed, like payments).
      enforceRateLimit(deps, [key], undefined, limit).then(
        () => true,
        () => false,
      ),
  };
}
