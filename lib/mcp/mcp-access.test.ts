import { describe, expect, it } from "vitest";
import type { Caller } from "../access/caller";
import { AppError } from "../errors";
import { admitToMcp, protectedResourceMetadata, resourceMetadataUrl, siteOrigin, withResourceMetadata } from "./mcp-access";
import { allowedOrigin, checkOrigin } from "./origin-check";

const budget = { perPayment: 1n, perRequest: 2n, daily: 3n };
const anonymous: Caller = { kind: "anonymous" };
const key = (agentWallet: boolean): Caller => ({ kind: "key", id: "0123456789abcdef", name: "desktop", budget, agentWallet });
const account = (agentWallet: boolean): Caller => ({ kind: "account", address: "0x52908400098527886E0F7030069857D2E4169EE7", budget, agentWallet });

function refusal(work: () => void): AppError | undefined {
  try {
    work();
    return undefined;
  } catch (error) {
    if (AppError.isInstance(error)) return error;
    throw error;
  }
}

describe("who may call the MCP server", () => {
  it("admits anyone where access is open, except a key or wallet the operator kept from the agent wallet", () => {
    expect(refusal(() => admitToMcp(anonymous, "open", true))).toBeUndefined();
    expect(refusal(() => admitToMcp(key(true), "open", true))).toBeUndefined();
    expect(refusal(() => admitToMcp(key(false), "open", true))?.code).toBe("forbidden:agent_wallet");
  });

  it("wants a credential where access is for named callers: anonymous is 401 with a Bearer challenge", () => {
    for (const mode of ["authenticated", "signed-in"] as const) {
      const error = refusal(() => admitToMcp(anonymous, mode, true));
      expect(error?.status, mode).toBe(401);
      expect(error?.code).toBe("unauthorized:credentials_required");
      expect(error?.headers["WWW-Authenticate"]).toBe('Bearer realm="x402-agent"');
    }
    expect(refusal(() => admitToMcp(key(true), "authenticated", true))).toBeUndefined();
    expect(refusal(() => admitToMcp(account(true), "authenticated", true))).toBeUndefined();
    expect(refusal(() => admitToMcp(key(false), "authenticated", true))?.status).toBe(403);
    expect(refusal(() => admitToMcp(account(false), "authenticated", true))?.status).toBe(403);
  });

  it("refuses nobody for the agent wallet where there is none: such a server only discovers and quotes", () => {
    expect(refusal(() => admitToMcp(anonymous, "authenticated", false))).toBeUndefined();
  });

  it("adds the protected-resource metadata to a 401's challenge, keeping its error; other errors pass unchanged", () => {
    const metadata = resourceMetadataUrl("https://agent.example");
    expect(metadata).toBe("https://agent.example/.well-known/oauth-protected-resource");
    const missing = withResourceMetadata(
      refusal(() => admitToMcp(anonymous, "authenticated", true)),
      metadata,
    ) as AppError;
    expect(missing.status).toBe(401);
    expect(missing.code).toBe("unauthorized:credentials_required");
    expect(missing.headers["WWW-Authenticate"]).toBe(`Bearer realm="x402-agent", resource_metadata="${metadata}"`);
    const bad = new AppError("unauthorized:bad_key", { headers: { "WWW-Authenticate": 'Bearer realm="x402-agent", error="invalid_token"' } });
    expect((withResourceMetadata(bad, metadata) as AppError).headers["WWW-Authenticate"]).toBe(
      `Bearer realm="x402-agent", error="invalid_token", resource_metadata="${metadata}"`,
    );
    const forbidden = new AppError("forbidden:agent_wallet");
    expect(withResourceMetadata(forbidden, metadata)).toBe(forbidden);
    const plain = new Error("boom");
    expect(withResourceMetadata(plain, metadata)).toBe(plain);
  });

  it("names the resource at the configured site, else at the request's own origin (the local world)", () => {
    const request = new Request("http://127.0.0.1:3000/api/mcp", { method: "POST" });
    expect(siteOrigin("https://agent.example", request)).toBe("https://agent.example");
    expect(siteOrigin(undefined, request)).toBe("http://127.0.0.1:3000");
    // The loopback name the client used, whatever the server's view of its own URL says.
    expect(siteOrigin(undefined, new Request("http://localhost:3917/api/mcp", { headers: { host: "127.0.0.1:3917" } }))).toBe("http://127.0.0.1:3917");
    expect(siteOrigin(undefined, new Request("http://localhost:3917/api/mcp", { headers: { host: "evil.example" } }))).toBe("http://localhost:3917");
    expect(protectedResourceMetadata("https://agent.example")).toEqual({
      resource: "https://agent.example/api/mcp",
      resource_name: "x402 payment agent (MCP)",
      bearer_methods_supported: ["header"],
    });
  });
});

describe("requests from browsers", () => {
  it("serves programs (no Origin) and this site; refuses other sites, rebound names included", () => {
    expect(allowedOrigin(null, undefined)).toBe(true);
    expect(allowedOrigin(null, "https://agent.example")).toBe(true);
    expect(allowedOrigin("https://agent.example", "https://agent.example")).toBe(true);
    expect(allowedOrigin("https://evil.example", "https://agent.example")).toBe(false);
    expect(allowedOrigin("http://agent.example", "https://agent.example")).toBe(false);
    // The local world has no APP_URL: loopback origins only.
    for (const origin of ["http://127.0.0.1:3000", "http://localhost:3000", "http://[::1]:3000", "http://localhost"])
      expect(allowedOrigin(origin, undefined), origin).toBe(true);
    for (const origin of ["http://evil.example:3000", "http://127.0.0.1.evil.example", "null", "http://localhost.evil.example:3000"])
      expect(allowedOrigin(origin, undefined), origin).toBe(false);
    const error = refusal(() => checkOrigin(new Request("http://127.0.0.1:3000/api/mcp", { headers: { origin: "http://rebound.example:3000" } }), undefined));
    expect(error?.status).toBe(403);
    expect(error?.code).toBe("forbidden:other_origin");
  });
});
