/**
 * The sign-in routes end to end with a memory store: nonce cookie → signed message → session
 * cookie; a replayed sign-in, a nonce from another browser and a missing secret are refused.
 */
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { createSiweMessage } from "viem/siwe";
import { describe, expect, it } from "vitest";
import { parseEnv } from "../env";
import { createMemoryStore } from "../store/create-memory-store";
import type { AuthDependencies } from "./auth-dependencies";
import { handleNonceRequest, handleSessionRequest, handleSignInRequest, handleSignOutRequest } from "./handle-auth-requests";
import { SESSION_COOKIE } from "../auth/session-cookie";
import { NONCE_COOKIE } from "../auth/siwe-nonce";

const ORIGIN = "http://127.0.0.1:3000";
const wallet = privateKeyToAccount(generatePrivateKey());

function dependencies(env: Record<string, string> = {}): AuthDependencies {
  return { env: parseEnv(env), network: { chainId: 31337 }, store: createMemoryStore(), now: Date.now };
}

/** `name=value` of the Set-Cookie header that sets `name`. */
function cookieFrom(response: Response, name: string): string {
  const cookie = response.headers.getSetCookie().find((value) => value.startsWith(`${name}=`));
  if (!cookie) throw new Error(`no ${name} cookie in ${JSON.stringify(response.headers.getSetCookie())}`);
  return cookie.split(";")[0] as string;
}

async function nonceFor(deps: AuthDependencies): Promise<{ nonce: string; cookie: string }> {
  const response = await handleNonceRequest(new Request(`${ORIGIN}/api/auth/nonce`), () => deps);
  expect(response.status).toBe(200);
  const { nonce } = (await response.json()) as { nonce: string };
  return { nonce, cookie: cookieFrom(response, NONCE_COOKIE) };
}

async function signInBody(nonce: string, site = { domain: "127.0.0.1:3000", uri: ORIGIN }): Promise<string> {
  const message = createSiweMessage({ domain: site.domain, address: wallet.address, uri: site.uri, version: "1", chainId: 31337, nonce, issuedAt: new Date() });
  return JSON.stringify({ message, signature: await wallet.signMessage({ message }) });
}

function signIn(deps: AuthDependencies, body: string, cookie: string, headers: Record<string, string> = { host: "127.0.0.1:3000" }): Promise<Response> {
  return handleSignInRequest(
    new Request(`${ORIGIN}/api/auth/siwe`, { method: "POST", headers: { "content-type": "application/json", cookie, ...headers }, body }),
    () => deps,
  );
}

describe("sign-in routes", () => {
  it("signs in with a nonce from this browser, sets the session cookie, and reports the session", async () => {
    const deps = dependencies();
    const { nonce, cookie } = await nonceFor(deps);
    const response = await signIn(deps, await signInBody(nonce), cookie);
    expect(response.status).toBe(200);
    expect(await response.json()).toMatchObject({ signedIn: true, address: wallet.address, chainId: 31337 });
    const setCookies = response.headers.getSetCookie();
    expect(setCookies.find((value) => value.startsWith(`${SESSION_COOKIE}=`))).toMatch(/HttpOnly; SameSite=Lax/);
    // The nonce cookie is spent.
    expect(setCookies.find((value) => value.startsWith(`${NONCE_COOKIE}=`))).toMatch(/Max-Age=0/);

    const session = await handleSessionRequest(
      new Request(`${ORIGIN}/api/auth/session`, { headers: { cookie: cookieFrom(response, SESSION_COOKIE) } }),
      () => deps,
    );
    expect(await session.json()).toMatchObject({ signedIn: true, address: wallet.address });
  });

  it("refuses the same message, signature and cookie a second time (replay)", async () => {
    const deps = dependencies();
    const { nonce, cookie } = await nonceFor(deps);
    const body = await signInBody(nonce);
    expect((await signIn(deps, body, cookie)).status).toBe(200);
    const replay = await signIn(deps, body, cookie);
    expect(replay.status).toBe(401);
    expect(replay.headers.get("content-type")).toBe("application/problem+json");
    expect(((await replay.json()) as { detail: string }).detail).toMatch(/used already/);
    expect(replay.headers.getSetCookie()).toEqual([]);
  });

  it("refuses a nonce issued to another browser, and a sign-in without any nonce cookie", async () => {
    const deps = dependencies();
    const mine = await nonceFor(deps);
    const theirs = await nonceFor(deps);
    expect((await signIn(deps, await signInBody(mine.nonce), theirs.cookie)).status).toBe(401);
    expect((await signIn(deps, await signInBody(mine.nonce), "")).status).toBe(401);
  });

  it("refuses a nonce cookie signed with another secret", async () => {
    const issuedElsewhere = await nonceFor(dependencies({ SESSION_SECRET: "x".repeat(32) }));
    const deps = dependencies({ SESSION_SECRET: "y".repeat(32) });
    expect((await signIn(deps, await signInBody(issuedElsewhere.nonce), issuedElsewhere.cookie)).status).toBe(401);
  });

  it("refuses a malformed body with 400", async () => {
    const deps = dependencies();
    const { cookie } = await nonceFor(deps);
    const response = await signIn(deps, JSON.stringify({ message: "hi", signature: "not hex" }), cookie);
    expect(response.status).toBe(400);
  });

  it("is closed (503) outside the local world without SESSION_SECRET", async () => {
    const deps = dependencies({ X402_NETWORK: "base-sepolia", QUOTE_SECRET: "q".repeat(32), APP_URL: "https://agent.example" });
    expect((await handleNonceRequest(new Request(`${ORIGIN}/api/auth/nonce`), () => deps)).status).toBe(503);
  });

  it("signs out by expiring the session cookie", () => {
    const response = handleSignOutRequest(new Request("https://agent.example/api/auth/session", { method: "DELETE" }));
    expect(response.status).toBe(204);
    expect(response.headers.get("set-cookie")).toMatch(new RegExp(`^${SESSION_COOKIE}=; Path=/; Max-Age=0; HttpOnly; SameSite=Lax; Secure$`));
  });

  it("takes the site from APP_URL, never from Host or forwarded headers", async () => {
    const evil = { domain: "evil.example", uri: "https://evil.example" };
    const forged = { host: "evil.example", "x-forwarded-proto": "https", "x-forwarded-host": "evil.example" };
    // The local world without APP_URL: only loopback names are this app.
    const local = dependencies();
    let nonce = await nonceFor(local);
    const refused = await signIn(local, await signInBody(nonce.nonce, evil), nonce.cookie, forged);
    expect(refused.status).toBe(401);
    expect(refused.headers.getSetCookie()).toEqual([]);

    // A configured site: a message for it signs in whatever Host says; one for the Host does not.
    const configured = dependencies({ APP_URL: "https://agent.example" });
    nonce = await nonceFor(configured);
    expect((await signIn(configured, await signInBody(nonce.nonce, evil), nonce.cookie, forged)).status).toBe(401);
    nonce = await nonceFor(configured);
    const accepted = await signIn(configured, await signInBody(nonce.nonce, { domain: "agent.example", uri: "https://agent.example/" }), nonce.cookie, forged);
    expect(accepted.status).toBe(200);
    // The site is https, so the session cookie is Secure even though this request came over http.
    expect(accepted.headers.getSetCookie().find((value) => value.startsWith(`${SESSION_COOKIE}=`))).toMatch(/; Secure$/);
    // A message naming the loopback address is not for the configured site.
    nonce = await nonceFor(configured);
    expect((await signIn(configured, await signInBody(nonce.nonce), nonce.cookie)).status).toBe(401);
  });

  it("limits sign-in attempts per client address, with Retry-After", async () => {
    const deps = dependencies({ SIGN_IN_RATE_LIMIT_REQUESTS: "3" });
    const statuses: number[] = [];
    let last: Response | undefined;
    for (let attempt = 0; attempt < 5; attempt += 1) {
      last = await handleNonceRequest(new Request(`${ORIGIN}/api/auth/nonce`), () => deps);
      statuses.push(last.status);
    }
    expect(statuses).toEqual([200, 200, 200, 429, 429]);
    expect(Number(last?.headers.get("retry-after"))).toBeGreaterThan(0);
    // Signing in counts in the same window: the fourth attempt of this address is refused too.
    const body = await signInBody("abcdefgh12345678");
    expect((await signIn(deps, body, "")).status).toBe(429);
  });
});
