/**
 * The grant this tab spends, kept in sessionStorage: its token (the proof of the wallet that
 * lets the chat pay under it), which wallet it is for, and what it allows. Only this tab sees
 * it, and it goes when the tab closes; the page never logs it. When the grant ends (revoked,
 * replaced, expired, or refused by the chat) the token is dropped and a sentence says why.
 */
import { z } from "zod";
import { createLocalStore, useLocalStore } from "./local-store";

const ActiveGrant = z.object({
  status: z.literal("active"),
  id: z.string().regex(/^[0-9a-f]{16}$/),
  token: z.string().regex(/^x402g_[0-9a-f]{16}_[A-Za-z0-9_-]{43}$/),
  walletAddress: z.string().regex(/^0x[0-9a-fA-F]{40}$/),
  amount: z.string().max(40),
  expiresAt: z.string().max(40),
});
const EndedGrant = z.object({ status: z.literal("ended"), message: z.string().max(400) });

export const GrantSession = z.union([ActiveGrant, EndedGrant]).nullable();
export type GrantSession = z.infer<typeof GrantSession>;
export type ActiveGrant = z.infer<typeof ActiveGrant>;

export const grantSessionStore = createLocalStore<GrantSession>("x402-agent.grant.v1", GrantSession, null, { area: "session" });

export function useGrantSession(): GrantSession {
  return useLocalStore(grantSessionStore, null);
}

/** The active grant of `walletAddress`, if this tab holds one: a grant pays only for its own wallet. */
export function activeGrantFor(session: GrantSession, walletAddress: string | undefined): ActiveGrant | undefined {
  if (session?.status !== "active" || walletAddress === undefined) return undefined;
  return session.walletAddress.toLowerCase() === walletAddress.toLowerCase() ? session : undefined;
}

/** Drops the token, keeping a sentence that says why the grant stopped paying. */
export function endGrantSession(message: string): void {
  grantSessionStore.set({ status: "ended", message });
}
