/**
 * Who may spend the agent wallet, tried against the production build (`next start`) the way an
 * attacker would: fresh keys sign in through `/api/auth/nonce` and `/api/auth/siwe` over HTTP
 * and ask for a paid answer; a sign-in message for another site arrives with a forged `Host`.
 * What Next's production server does with `Host` and forwarded headers is part of what is
 * tested, so this runs on the built app rather than on the handlers.
 */
import { request as httpRequest } from "node:http";
import { createPublicClient, erc20Abi, http } from "viem";
import { generatePrivateKey, privateKeyToAccount, type PrivateKeyAccount } from "viem/accounts";
import { createSiweMessage } from "viem/siwe";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { startAppServer, type AppServer } from "./support/app-server";
import "./support/context";

const { devnetFile, rpcUrl, chainId, usdc, agentAddress } = inject("e2e");
const SESSION_SECRET = "an-e2e-session-secret-of-at-least-32-characters";
let server: AppServer;

beforeAll(async () => {
  server = await startAppServer({
    X402_NETWORK: "local",
    DEVNET_FILE: devnetFile,
    RATE_LIMIT_REQUESTS: "1000",
    SESSION_SECRET,
    AGENT_WALLET_ACCESS: "authenticated",
  });
});
afterAll(async () => {
  await server?.stop();
});

type RawResponse = { status: number; headers: Record<string, string | string[] | undefined>; body: string };

/** A request with exactly these headers (fetch would not let a test forge `Host`). */
function send(path: string, options: { method?: string; headers?: Record<string, string>; body?: string }): Promise<RawResponse> {
  const url = new URL(path, server.url);
  return new Promise((resolve, reject) => {
    const outgoing = httpRequest(
      {
        host: url.hostname,
        port: url.port,
        path: url.pathname,
        method: options.method ?? "GET",
        headers: { ...options.headers, ...(options.body ? { "content-length": Buffer.byteLength(options.body) } : {}) },
      },
      (response) => {
        const chunks: Buffer[] = [];
        response.on("data", (chunk: Buffer) => chunks.push(chunk));
        response.on("end", () => resolve({ status: response.statusCode ?? 0, headers: response.headers, body: Buffer.concat(chunks).toString("utf8") }));
        response.on("error", reject);
      },
    );
    outgoing.on("error", reject);
    outgoing.end(options.body);
  });
}

function cookieOf(response: RawResponse, name: string): string | undefined {
  const setCookies = response.headers["set-cookie"] ?? [];
  return (Array.isArray(setCookies) ? setCookies : [setCookies]).find((cookie) => cookie.startsWith(`${name}=`))?.split(";")[0];
}

/** Asks for a nonce and signs a message for `site` with it; returns the sign-in's response. */
async function signIn(account: PrivateKeyAccount, site: { domain: string; uri: string }, headers: Record<string, string>): Promise<RawResponse> {
  const issued = await send("/api/auth/nonce", { headers });
  expect(issued.status).toBe(200);
  const { nonce } = JSON.parse(issued.body) as { nonce: string };
  const message = createSiweMessage({ domain: site.domain, address: account.address, uri: site.uri, version: "1", chainId, nonce, issuedAt: new Date() });
  return send("/api/auth/siwe", {
    method: "POST",
    headers: { ...headers, "content-type": "application/json", cookie: cookieOf(issued, "x402_siwe_nonce") ?? "" },
    body: JSON.stringify({ message, signature: await account.signMessage({ message }) }),
  });
}

const balanceOf = (address: `0x${string}`) =>
  createPublicClient({ transport: http(rpcUrl) }).readContract({ address: usdc, abi: erc20Abi, functionName: "balanceOf", args: [address] });

describe("the agent wallet on a production build, against strangers (AGENT_WALLET_ACCESS=authenticated)", () => {
  it("lets fresh wallets sign in, but never makes the agent wallet pay for them", async () => {
    const before = await balanceOf(agentAddress);
    const host = new URL(server.url).host;
    for (let index = 0; index < 3; index += 1) {
      const signedIn = await signIn(privateKeyToAccount(generatePrivateKey()), { domain: host, uri: server.url }, { host });
      expect(signedIn.status).toBe(200);
      const session = cookieOf(signedIn, "x402_session");
      expect(session).toBeDefined();
      const chat = await send("/api/chat", {
        method: "POST",
        headers: { host, "content-type": "application/json", cookie: session ?? "" },
        body: JSON.stringify({ messages: [{ role: "user", content: "What is the weather in Lisbon?" }] }),
      });
      expect(chat.status).toBe(403);
      expect(JSON.parse(chat.body)).toMatchObject({ code: "forbidden:agent_wallet" });
    }
    expect(await balanceOf(agentAddress)).toBe(before);
  });

  it("refuses a sign-in message for another site whatever Host and X-Forwarded-* say, and sets no session", async () => {
    const forged = { host: "evil.example", "x-forwarded-proto": "https", "x-forwarded-host": "evil.example" };
    const response = await signIn(privateKeyToAccount(generatePrivateKey()), { domain: "evil.example", uri: "https://evil.example" }, forged);
    expect(response.status).toBe(401);
    expect(cookieOf(response, "x402_session")).toBeUndefined();
  });
});
