import "server-only";
/**
 * Who is asking, and may they spend the operator's money. A chat request names its caller by
 * an API key (`Authorization: Bearer x402k_…`), by a Sign-In with Ethereum session cookie, or
 * not at all. A credential that is presented and fails is refused (401), never quietly treated
 * as anonymous: a caller whose key was revoked must learn it, not fall back to another budget.
 */
import { AppError } from "../errors";
import { sessionOf } from "../auth/session-cookie";
import type { ApiKeyStore, CallerBudget } from "./api-keys";

export type Caller =
  | { kind: "anonymous" }
  | { kind: "key"; id: string; name: string; budget: CallerBudget; agentWallet: boolean }
  | { kind: "account"; address: `0x${string}`; budget: CallerBudget };

/** Who may make the agent wallet pay: anyone (the local world), or named callers only. */
export type AgentWalletAccess = "open" | "authenticated";

/** The challenge a 401 carries (RFC 6750): a bearer token for this realm. */
export const WWW_AUTHENTICATE = 'Bearer realm="x402-agent"';

export type ResolveCallerInput = {
  request: Request;
  apiKeys: ApiKeyStore;
  /** The session cookie's key, when sign-in is configured. */
  sessionSecret: string | undefined;
  /** The budget each signed-in wallet gets. */
  accountBudget: CallerBudget;
  now: number;
};

export async function resolveCaller(input: ResolveCallerInput): Promise<Caller> {
  const authorization = input.request.headers.get("authorization");
  if (authorization !== null) {
    const token = /^Bearer[ \t]+(\S+)[ \t]*$/i.exec(authorization)?.[1];
    if (!token) throw unauthorized("unauthorized:bad_key", 'error="invalid_request"', "The Authorization header must be `Bearer <API key>`.");
    const checked = await input.apiKeys.check(token, input.now);
    if (!checked.ok) {
      const why = checked.reason === "revoked" ? "has been revoked" : checked.reason === "expired" ? "has expired" : "is not a valid API key";
      throw unauthorized("unauthorized:bad_key", 'error="invalid_token"', `The bearer token ${why}.`);
    }
    const { id, name, budget, agentWallet } = checked.key;
    return { kind: "key", id, name, budget, agentWallet };
  }
  const session = input.sessionSecret ? sessionOf(input.request, input.sessionSecret, input.now) : undefined;
  if (session) return { kind: "account", address: session.address as `0x${string}`, budget: input.accountBudget };
  return { kind: "anonymous" };
}

/**
 * Refuses, before any model call, a request that would make the agent wallet pay for a caller
 * who may not: an anonymous caller where access is for named callers only (401), or a key the
 * operator did not allow to use the agent wallet (403). Callers paying from their own wallet
 * are never refused here.
 */
export function authorizeAgentWallet(caller: Caller, access: AgentWalletAccess, agentWalletPays: boolean): void {
  if (!agentWalletPays) return;
  if (caller.kind === "anonymous" && access === "authenticated") {
    throw unauthorized(
      "unauthorized:credentials_required",
      undefined,
      "The agent wallet pays only for callers it knows: send an API key (Authorization: Bearer …), sign in with your wallet, or pay from your own wallet (walletAddress).",
    );
  }
  if (caller.kind === "key" && !caller.agentWallet) throw new AppError("forbidden:agent_wallet");
}

/** The key under which a caller's own requests are counted for rate limits and budgets. */
export function callerKey(caller: Caller): string | undefined {
  if (caller.kind === "key") return `key:${caller.id}`;
  if (caller.kind === "account") return `account:${caller.address.toLowerCase()}`;
  return undefined;
}

/** How a caller's budget is named to a person: in refusals, the stream and the page. */
export function budgetLabel(caller: Caller): string {
  if (caller.kind === "key") return `the API key “${caller.name}”'s budget`;
  if (caller.kind === "account") return "your signed-in budget";
  return "your limits";
}

function unauthorized(code: "unauthorized:bad_key" | "unauthorized:credentials_required", error: string | undefined, message: string): AppError {
  return new AppError(code, { message, headers: { "WWW-Authenticate": error ? `${WWW_AUTHENTICATE}, ${error}` : WWW_AUTHENTICATE } });
}
