/**
 * A sign-in-with-x challenge as x402's `specs/extensions/sign-in-with-x.md` example has it, for
 * the local archive service's origin and the local chain: the tests of reading, binding and
 * signing challenges start from this one and change what they test.
 */
export const SIWX_ORIGIN = "http://127.0.0.1:4021";
export const SIWX_URL = `${SIWX_ORIGIN}/archive/documents/doc-1`;
export const SIWX_CHAINS = [{ chainId: "eip155:31337", type: "eip191" }];

/** The challenge's `info`, issued a second before `now` and valid for `lifetimeMs`, with `extra` fields added. */
export function siwxInfo(now: number, lifetimeMs: number, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    domain: "127.0.0.1:4021",
    uri: SIWX_URL,
    version: "1",
    nonce: "a1b2c3d4e5f67890a1b2c3d4e5f67890",
    issuedAt: new Date(now - 1_000).toISOString(),
    expirationTime: new Date(now + lifetimeMs).toISOString(),
    ...extra,
  };
}
