import "server-only";
/**
 * Who is asking, and may they spend the operator's money. A chat request names its caller by
 * an API key (`Authorization: Bearer x402k_…`), by a Sign-In with Ethereum session cookie, or
 * not at all. A credential that is presented and fails is refused (401), never quietly treated
 * as anonymous: a caller whose key was revoked must learn it, not fall back to another budget.
 */
import { AppError } from "../errors";
import { sessionOf } from "../auth/session-cookie";
import { GRANT_TOKEN_PREFIX } from "../grants/grants";
import type { ApiKeyStore, CallerBudget } from "./api-keys";

export type Caller =
  | { kind: "anonymous" }
  | { kind: "key"; id: string; name: string; budget: CallerBudget; agentWallet: boolean }
  | {
      kind: "account";
      address: `0x${string}`;
      budget: CallerBudget;
      /** Whether the operator lets this wallet make the agent wallet pay. */
      agentWallet: boolean;
      /** A budget shared with every other wallet of its kind (`signed-in` access), counted too. */
      pool?: BudgetPool;
    };

/** A daily budget shared by many callers, counted under one key. */
export type BudgetPool = { key: string; dailyLimit: bigint };

/** The ledger key of the budget all signed-in wallets the operator did not list share. */
export const OPEN_SIGN_IN_POOL = "pool:open-sign-in";

/**
 * Who may make the agent wallet pay: anyone (the local world); named callers only (API keys
 * with permission, and the wallets the operator listed once they sign in); or, in addition,
 * any wallet that signs in, within a small budget of its own and a cap shared by all of them.
 */
export type AgentWalletAccess = "open" | "authenticated" | "signed-in";

/** What the operator decided about signed-in wallets (AGENT_WALLET_ACCESS and its budgets). */
export type AccountAccess = {
  mode: AgentWalletAccess;
  /** The budget of a wallet the operator listed (and of every one where access is open). */
  accountBudget: CallerBudget;
  /** The listed wallets, lowercase. */
  allowedWallets: readonly string[];
  openSignIn: { budget: CallerBudget; dailyCap: bigint };
};

/** The challenge a 401 carries (RFC 6750): a bearer token for this realm. */
export const WWW_AUTHENTICATE = 'Bearer realm="x402-agent"';

export type ResolveCallerInput = {
  request: Request;
  apiKeys: ApiKeyStore;
  /** The session cookie's key, when sign-in is configured. */
  sessionSecret: string | undefined;
  /** The chain this deployment pays on: a session for another chain is no credential here. */
  chainId: number;
  access: AccountAccess;
  now: number;
};

/**
 * The bearer token of `Authorization`, if the header is there.
 * @throws AppError 401 when the header is there but not `Bearer <token>`.
 */
export function bearerTokenOf(request: Request): string | undefined {
  const authorization = request.headers.get("authorization");
  if (authorization === null) return undefined;
  const token = /^Bearer[ \t]+(\S+)[ \t]*$/i.exec(authorization)?.[1];
  if (!token) throw unauthorized("unauthorized:bad_key", 'error="invalid_request"', "The Authorization header must be `Bearer <API key or grant token>`.");
  return token;
}

/**
 * The bearer token when it is a grant's (`x402g_…`): it proves a wallet, not a caller of the
 * agent wallet, and the door checks it (lib/doors/grant-payer-for.ts); an API key is checked here.
 */
export function grantTokenOf(request: Request): string | undefined {
  const token = bearerTokenOf(request);
  return token?.startsWith(GRANT_TOKEN_PREFIX) ? token : undefined;
}

export async function resolveCaller(input: ResolveCallerInput): Promise<Caller> {
  const token = bearerTokenOf(input.request);
  if (token !== undefined && !token.startsWith(GRANT_TOKEN_PREFIX)) {
    // No time passed: the store judges expiry on its own clock (the database's), the one every
    // instance shares, not on this instance's.
    const checked = await input.apiKeys.check(token);
    if (!checked.ok) {
      const why = checked.reason === "revoked" ? "has been revoked" : checked.reason === "expired" ? "has expired" : "is not a valid API key";
      throw unauthorized("unauthorized:bad_key", 'error="invalid_token"', `The bearer token ${why}.`);
    }
    const { id, name, budget, agentWallet } = checked.key;
    return { kind: "key", id, name, budget, agentWallet };
  }
  const session = input.sessionSecret ? sessionOf(input.request, input.sessionSecret, input.now) : undefined;
  if (!session) return { kind: "anonymous" };
  // Like a bad key: a session presented for another chain is refused, not treated as anonymous.
  if (session.chainId !== input.chainId) {
    throw unauthorized(
      "unauthorized:bad_key",
      'error="invalid_token"',
      `Your sign-in was for chain ${session.chainId}; this deployment pays on chain ${input.chainId}. Sign in again.`,
    );
  }
  return accountCaller(session.address as `0x${string}`, input.access);
}

/**
 * A signed-in wallet, with what it may spend of the agent wallet: a listed wallet (or any,
 * where access is open) its budget; any other wallet the small open budget where access is
 * `signed-in`, counted in the pool they share too; and otherwise nothing of the agent wallet.
 */
export function accountCaller(address: `0x${string}`, access: AccountAccess): Caller {
  const listed = access.mode === "open" || access.allowedWallets.includes(address.toLowerCase());
  if (listed) return { kind: "account", address, budget: access.accountBudget, agentWallet: true };
  if (access.mode === "signed-in") {
    return {
      kind: "account",
      address,
      budget: access.openSignIn.budget,
      agentWallet: true,
      pool: { key: OPEN_SIGN_IN_POOL, dailyLimit: access.openSignIn.dailyCap },
    };
  }
  return { kind: "account", address, budget: access.accountBudget, agentWallet: false };
}

/**
 * Refuses, before any model call, a request that would make the agent wallet pay for a caller
 * who may not: an anonymous caller where access is for named callers only (401), a key the
 * operator did not allow to use the agent wallet, or a signed-in wallet the operator did not
 * list (403). Callers paying from their own wallet are never refused here.
 */
export function authorizeAgentWallet(caller: Caller, access: AgentWalletAccess, agentWalletPays: boolean): void {
  if (!agentWalletPays) return;
  if (caller.kind === "anonymous" && access !== "open") {
    throw unauthorized(
      "unauthorized:credentials_required",
      undefined,
      "The agent wallet pays only for callers it knows: send an API key (Authorization: Bearer …), sign in with a wallet the operator allowed, or pay from your own wallet (walletAddress).",
    );
  }
  if (caller.kind === "key" && !caller.agentWallet) throw new AppError("forbidden:agent_wallet");
  if (caller.kind === "account" && !caller.agentWallet) {
    throw new AppError("forbidden:agent_wallet", {
      message:
        "This wallet is signed in, but the operator has not allowed it to make the agent wallet pay. Pay from your own wallet (walletAddress), or ask the operator to list it.",
    });
  }
}

/**
 * Whether the caller may have the server call URLs that no discovery listed (the ones a
 * person writes into a message): the same privilege as making the agent wallet pay, since an
 * unlisted URL is answered on the server's behalf. Anyone may where access is open.
 */
export function mayCallUnlisted(caller: Caller, access: AgentWalletAccess): boolean {
  if (access === "open") return true;
  return caller.kind !== "anonymous" && caller.agentWallet;
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
