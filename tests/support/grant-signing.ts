/**
 * A grant made the way a wallet makes one: prepare, sign the typed data with the wallet's key,
 * submit. For integration tests that pay under a grant.
 */
import type { PrivateKeyAccount } from "viem/accounts";
import { expect } from "vitest";
import { formatUsdc } from "../../lib/money";
import { handleCreateGrant, handlePrepareGrant, type GrantsDependencies } from "../../lib/grants/handle-grants-request";

export function grantRequest(method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Request {
  return new Request(`http://127.0.0.1${path}`, {
    method,
    headers: { "content-type": "application/json", ...headers },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
}

/** One signature: the grant's typed data, signed by `wallet` as a wallet would, and submitted; its id and token. */
export async function signGrant(
  deps: GrantsDependencies,
  wallet: PrivateKeyAccount,
  amount: bigint,
  expiresInSeconds = 3600,
): Promise<{ id: string; token: string }> {
  const prepared = await handlePrepareGrant(
    grantRequest("POST", "/api/grants/prepare", { walletAddress: wallet.address, amount: formatUsdc(amount), expiresInSeconds }),
    () => deps,
  );
  expect(prepared.status).toBe(200);
  const { typedData } = (await prepared.json()) as { typedData: Record<string, unknown> };
  const signature = await wallet.signTypedData(typedData as never);
  const created = await handleCreateGrant(grantRequest("POST", "/api/grants", { typedData, signature }), () => deps);
  expect(created.status).toBe(201);
  const body = (await created.json()) as { grant: { id: string }; token: string };
  return { id: body.grant.id, token: body.token };
}
