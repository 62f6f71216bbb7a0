/**
 * The page's calls to the grant endpoints (docs/grants.md): prepare the typed data, submit the
 * signed permit, list the wallet's grants and revoke one. Every answer is read with zod, and a
 * refusal becomes a `GrantRequestError` carrying the server's problem in words.
 */
import { z } from "zod";
import { describeProblem } from "./chat-state";
import type { RequestProblem } from "./chat-types";
import { readProblem } from "./request-problem";

const GrantView = z.object({
  id: z.string().regex(/^[0-9a-f]{16}$/),
  walletAddress: z.string(),
  amount: z.string(),
  remaining: z.string(),
  expiresAt: z.string(),
  state: z.enum(["active", "expired", "revoked", "replaced"]),
});
export type GrantView = z.infer<typeof GrantView>;

const PreparedGrant = z.object({
  typedData: z.unknown(),
  expiresAt: z.string(),
  approval: z.object({ needed: z.boolean(), token: z.string().optional(), spender: z.string().optional() }),
});
export type PreparedGrant = z.infer<typeof PreparedGrant>;

const CreatedGrant = z.object({ grant: GrantView, token: z.string() });
const GrantList = z.object({ grants: z.array(GrantView) });

/** A grant endpoint said no (or answered something unreadable). */
export class GrantRequestError extends Error {
  constructor(readonly problem: RequestProblem) {
    super(describeProblem(problem));
    this.name = "GrantRequestError";
  }
}

async function call<T>(path: string, init: RequestInit, schema: z.ZodType<T>): Promise<T> {
  const response = await fetch(path, { ...init, cache: "no-store" });
  if (!response.ok) throw new GrantRequestError(await readProblem(response));
  const parsed = schema.safeParse(await response.json().catch(() => undefined));
  if (!parsed.success) {
    throw new GrantRequestError({
      status: 502,
      title: "Unreadable answer",
      detail: "The server's answer was not understood.",
      retryAfterSeconds: undefined,
      fieldErrors: [],
    });
  }
  return parsed.data;
}

const json = { "Content-Type": "application/json" };
const bearer = (token: string) => ({ Authorization: `Bearer ${token}` });

export function prepareGrant(input: { walletAddress: string; amount: string; expiresInSeconds: number }): Promise<PreparedGrant> {
  return call("/api/grants/prepare", { method: "POST", headers: json, body: JSON.stringify(input) }, PreparedGrant);
}

export function createGrant(typedData: unknown, signature: `0x${string}`): Promise<z.infer<typeof CreatedGrant>> {
  return call("/api/grants", { method: "POST", headers: json, body: JSON.stringify({ typedData, signature }) }, CreatedGrant);
}

export async function listGrants(token: string): Promise<GrantView[]> {
  return (await call("/api/grants", { headers: bearer(token) }, GrantList)).grants;
}

export async function revokeGrant(id: string, token: string): Promise<GrantView> {
  return (await call(`/api/grants/${encodeURIComponent(id)}`, { method: "DELETE", headers: bearer(token) }, z.object({ grant: GrantView }))).grant;
}
