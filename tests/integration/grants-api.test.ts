/**
 * Grants on the local world, through the endpoints' handlers and the real chain: the user signs
 * the typed data `POST /api/grants/prepare` hands out, `POST /api/grants` checks it and submits
 * the permit (Permit2's allowance to the relayer is then on chain), and only a caller proven to
 * be the wallet (the grant's token or a sign-in session) lists or revokes its grants. Replays,
 * wrong fields, other signers and a wallet without Permit2 approval are refused before any
 * transaction.
 */
import { createPublicClient, getAddress, http, parseAbi, type Hex } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createSessionToken, SESSION_COOKIE } from "../../lib/auth/session-cookie";
import { grantsDependenciesOf } from "../../lib/app/grants-dependencies";
import { PERMIT2 } from "../../lib/grants/grant-permit";
import { handleCreateGrant, handleListGrants, handlePrepareGrant, handleRevokeGrant, type GrantsDependencies } from "../../lib/grants/handle-grants-request";
import { startChatHarness, type ChatHarness } from "../support/chat-harness";

const SESSION_SECRET = "grants-test-session-secret-0123456789abcdef";
const allowanceAbi = parseAbi([
  "function allowance(address owner, address token, address spender) view returns (uint160 amount, uint48 expiration, uint48 nonce)",
]);

/** A grant endpoint's JSON answer, loosely: each test reads the fields it checks. */
type Answer = {
  grant: { id: string; [field: string]: unknown };
  grants: { id: string; state: string; remaining: string }[];
  token: string;
  code: string;
  errors: { path: string; message: string }[];
};

let harness: ChatHarness;
let deps: GrantsDependencies;
let chain: ReturnType<typeof createPublicClient>;

beforeAll(async () => {
  harness = await startChatHarness({ env: { SESSION_SECRET } });
  deps = grantsDependenciesOf(harness.deps);
  chain = createPublicClient({ transport: http(harness.devnet.rpcUrl), cacheTime: 0 });
}, 120_000);

afterAll(async () => {
  await harness?.stop();
});

const user = () => privateKeyToAccount(harness.devnet.accounts.user.privateKey as Hex);
const relayer = () => privateKeyToAccount(harness.devnet.accounts.agent.privateKey as Hex).address;

function call(method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Request {
  return new Request(`http://127.0.0.1${path}`, {
    method,
    headers: { "content-type": "application/json", ...headers },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
}

async function prepare(walletAddress: string, amount: string, expiresInSeconds = 3600) {
  const response = await handlePrepareGrant(call("POST", "/api/grants/prepare", { walletAddress, amount, expiresInSeconds }), () => deps);
  return { status: response.status, body: (await response.json()) as { typedData: Record<string, unknown>; approval: { needed: boolean }; expiresAt: string } };
}

async function create(body: unknown) {
  const response = await handleCreateGrant(call("POST", "/api/grants", body), () => deps);
  return { status: response.status, body: (await response.json()) as Answer };
}

async function list(headers: Record<string, string>) {
  const response = await handleListGrants(call("GET", "/api/grants", undefined, headers), () => deps);
  return { status: response.status, body: (await response.json()) as Answer };
}

function cookieOf(address: `0x${string}`): Record<string, string> {
  const now = Date.now();
  return {
    cookie: `${SESSION_COOKIE}=${createSessionToken({ address, chainId: harness.devnet.chainId, issuedAt: now, expiresAt: now + 60_000 }, SESSION_SECRET)}`,
  };
}

async function allowanceOf(owner: `0x${string}`) {
  return chain.readContract({ address: PERMIT2, abi: allowanceAbi, functionName: "allowance", args: [owner, harness.devnet.usdc as `0x${string}`, relayer()] });
}

describe("grants", () => {
  it("one signature: the permit is on chain, the token lists the grant, a replay is refused, revoke ends it", { timeout: 60_000 }, async () => {
    const wallet = user().address;
    const prepared = await prepare(wallet, "0.003");
    expect(prepared.status).toBe(200);
    expect(prepared.body.approval).toEqual({ needed: false });
    expect(prepared.body.typedData).toMatchObject({
      primaryType: "PermitSingle",
      domain: { name: "Permit2", chainId: harness.devnet.chainId, verifyingContract: PERMIT2 },
      message: { details: { token: getAddress(harness.devnet.usdc), amount: "3000" }, spender: relayer() },
    });
    // The typed data is signed exactly as it arrived (JSON), as a wallet would.
    const signature = await user().signTypedData(prepared.body.typedData as never);
    const created = await create({ typedData: prepared.body.typedData, signature });
    expect(created.status).toBe(201);
    expect(created.body.grant).toMatchObject({
      walletAddress: wallet,
      amount: "0.003",
      remaining: "0.003",
      state: "active",
      expiresAt: prepared.body.expiresAt,
    });
    const token = created.body.token as string;
    expect(token).toMatch(/^x402g_/);
    const [amount, expiration, nonce] = await allowanceOf(wallet);
    expect(amount).toBe(3000n);
    expect(new Date(Number(expiration) * 1000).toISOString()).toBe(prepared.body.expiresAt);

    // The same permit again: refused before any transaction (the nonce is used).
    const block = await chain.getBlockNumber();
    const replay = await create({ typedData: prepared.body.typedData, signature });
    expect(replay).toMatchObject({ status: 409, body: { code: "conflict:grant_used" } });
    expect(await chain.getBlockNumber()).toBe(block);
    expect((await allowanceOf(wallet))[2]).toBe(nonce);

    const listed = await list({ authorization: `Bearer ${token}` });
    expect(listed.status).toBe(200);
    expect(listed.body.grants.map((grant: { id: string }) => grant.id)).toContain(created.body.grant.id);
    // A session of the wallet sees the same; a session of another wallet sees none of them.
    expect((await list(cookieOf(wallet))).body.grants.map((grant: { id: string }) => grant.id)).toContain(created.body.grant.id);
    const stranger = privateKeyToAccount(harness.devnet.accounts.unfunded.privateKey as Hex).address;
    expect((await list(cookieOf(stranger))).body.grants).toEqual([]);

    // Another wallet cannot revoke it (as if it did not exist); the token's holder can.
    const id = created.body.grant.id as string;
    const foreign = await handleRevokeGrant(call("DELETE", `/api/grants/${id}`, undefined, cookieOf(stranger)), id, () => deps);
    expect(foreign.status).toBe(404);
    const revoked = await handleRevokeGrant(call("DELETE", `/api/grants/${id}`, undefined, { authorization: `Bearer ${token}` }), id, () => deps);
    expect(revoked.status).toBe(200);
    expect(await revoked.json()).toMatchObject({ grant: { id, state: "revoked", remaining: "0" } });
  });

  it("naming a wallet proves nothing: no credential, a wrong token or a forged one lists nothing", async () => {
    expect((await list({})).status).toBe(401);
    expect((await list({ authorization: "Bearer x402g_0123456789abcdef_" + "A".repeat(43) })).status).toBe(401);
    expect((await list({ authorization: "Bearer not-a-token" })).status).toBe(401);
  });

  it("refuses a permit with a field changed, another signer, or a wallet without Permit2 approval, before any transaction", { timeout: 60_000 }, async () => {
    const wallet = user().address;
    const block = await chain.getBlockNumber();
    const prepared = await prepare(wallet, "0.002");
    const typedData = prepared.body.typedData as { message: Record<string, unknown> };
    // The user's own address as spender: signed by the user, and still refused.
    const ownSpender = { ...typedData, message: { ...typedData.message, spender: wallet } };
    const wrongSpender = await create({ typedData: ownSpender, signature: await user().signTypedData(ownSpender as never) });
    expect(wrongSpender.status).toBe(400);
    expect(wrongSpender.body.errors).toEqual([expect.objectContaining({ path: "typedData.message.spender" })]);
    // Signed by someone else, naming the user.
    const other = privateKeyToAccount(harness.devnet.accounts.unfunded.privateKey as Hex);
    const forged = await create({ typedData, signature: await other.signTypedData(typedData as never), walletAddress: wallet });
    expect(forged.status).toBe(400);
    expect(forged.body.errors).toEqual([expect.objectContaining({ path: "signature" })]);
    // More than the operator allows.
    expect((await prepare(wallet, "100000")).status).toBe(400);
    // A wallet that never approved Permit2 on the token: told when preparing, refused when submitting.
    const unapproved = await prepare(other.address, "0.001");
    expect(unapproved.body.approval).toMatchObject({ needed: true, spender: PERMIT2, amount: "0.001" });
    const refused = await create({ typedData: unapproved.body.typedData, signature: await other.signTypedData(unapproved.body.typedData as never) });
    expect(refused.status).toBe(400);
    expect(refused.body.errors).toEqual([expect.objectContaining({ path: "approval" })]);
    expect(await chain.getBlockNumber()).toBe(block);
  });

  it("a new grant replaces the wallet's earlier one, on chain and here", { timeout: 60_000 }, async () => {
    const wallet = user().address;
    const grants = [];
    for (const amount of ["0.004", "0.005"]) {
      const prepared = await prepare(wallet, amount);
      const created = await create({ typedData: prepared.body.typedData, signature: await user().signTypedData(prepared.body.typedData as never) });
      expect(created.status).toBe(201);
      grants.push(created.body as { grant: { id: string }; token: string });
    }
    expect((await allowanceOf(wallet))[0]).toBe(5000n);
    const listed = await list({ authorization: `Bearer ${grants[0]!.token}` });
    const states = Object.fromEntries(
      listed.body.grants.map((grant: { id: string; state: string; remaining: string }) => [grant.id, [grant.state, grant.remaining]]),
    );
    expect(states[grants[0]!.grant.id]).toEqual(["replaced", "0"]);
    expect(states[grants[1]!.grant.id]).toEqual(["active", "0.005"]);
  });
});
