/**
 * Who may use the MCP server, decided as for the chat's agent wallet: every tool of this door
 * works for the agent wallet (discover, quote, pay, ask the agent), so a caller is admitted when
 * it may make the agent wallet pay: anyone where access is open, named callers (an API key with
 * agent-wallet permission, a signed-in wallet the operator allowed) otherwise. A refusal where a
 * key is missing or bad is 401 with a challenge naming this server's protected-resource
 * metadata (RFC 9728), so an MCP client can tell its user what to configure.
 */
import { authorizeAgentWallet, type AgentWalletAccess, type Caller } from "../access/caller";
import { signInSite } from "../auth/request-site";
import { AppError } from "../errors";

/** Where the protected-resource metadata of this deployment is served (RFC 9728 §3). */
export const RESOURCE_METADATA_PATH = "/.well-known/oauth-protected-resource";

/** The MCP endpoint's path: the protected resource. */
export const MCP_PATH = "/api/mcp";

/**
 * Admits the caller or throws the chat's refusal (401 `credentials_required` for an anonymous
 * caller where access is not open, 403 `forbidden:agent_wallet` for a key or wallet the
 * operator did not allow). Without an agent wallet nothing pays, and, as in the chat, nobody is
 * refused for that: such a server can discover and quote only.
 */
export function admitToMcp(caller: Caller, access: AgentWalletAccess, agentWallet: boolean): void {
  authorizeAgentWallet(caller, access, agentWallet);
}

/**
 * The origin this deployment is reached at: the configured site (`APP_URL`, required outside the
 * local world), else the loopback address the client used (the local world; the server's own
 * view of the URL may name another loopback host than the client's), else the request's URL.
 */
export function siteOrigin(appUrl: string | undefined, request: Request): string {
  return signInSite(appUrl, request)?.origin ?? new URL(request.url).origin;
}

/** The metadata's URL, as the 401 challenge names it. */
export function resourceMetadataUrl(origin: string): string {
  return `${origin}${RESOURCE_METADATA_PATH}`;
}

/**
 * A 401 with `resource_metadata` added to its `WWW-Authenticate` challenge (RFC 9728 §5.1);
 * any other error unchanged.
 */
export function withResourceMetadata(error: unknown, metadataUrl: string): unknown {
  if (!AppError.isInstance(error) || error.status !== 401) return error;
  const challenge = error.headers["WWW-Authenticate"] ?? 'Bearer realm="x402-agent"';
  return new AppError(error.code, {
    message: error.safeMessage,
    details: error.details,
    cause: error.cause,
    errors: error.errors,
    retryAfterSeconds: error.retryAfterSeconds,
    headers: { ...error.headers, "WWW-Authenticate": `${challenge}, resource_metadata="${metadataUrl}"` },
  });
}

/**
 * The protected-resource metadata (RFC 9728 §2). No `authorization_servers`: the operator issues
 * API keys itself (`npm run api-keys`), there is no OAuth authorization server to send a client
 * to, and a client configures the key as a bearer header.
 */
export function protectedResourceMetadata(origin: string) {
  return {
    resource: `${origin}${MCP_PATH}`,
    resource_name: "x402 payment agent (MCP)",
    bearer_methods_supported: ["header"],
  };
}
