/**
 * The browser's side of `GET /api/payments` and the sign-in routes: the answers checked with
 * zod, problems read as problem+json. The session cookie is HttpOnly, so the page asks the
 * server who is signed in rather than reading it.
 */
import { createSiweMessage } from "viem/siwe";
import { z } from "zod";
import { PaymentStatus } from "@/lib/stream";
import type { RequestProblem } from "./chat-types";
import { readProblem } from "./request-problem";

const PaymentView = z.object({
  id: z.string(),
  status: PaymentStatus,
  service: z.string().nullable(),
  resource: z.string().nullable(),
  method: z.string().nullable(),
  amount: z.string().nullable(),
  /** A metered (`upto`) payment's signed ceiling; `amount` is what it settled once it did. */
  ceiling: z.string().nullable().optional(),
  settlementFlag: z.string().nullable().optional(),
  asset: z.string().nullable(),
  network: z.string().nullable(),
  payTo: z.string().nullable(),
  txHash: z.string().nullable(),
  explorerUrl: z.string().nullable(),
  reason: z.string().nullable(),
  message: z.string().nullable(),
  createdAt: z.string(),
  updatedAt: z.string(),
  /** The service's signed receipt, as the agent judged it (the rest of it is the API's). */
  receipt: z.object({ signer: z.string().nullable(), verified: z.boolean(), reason: z.string().nullable() }).nullable().optional(),
});
export type PaymentView = z.infer<typeof PaymentView>;

export const PaymentHistory = z.object({
  payer: z.string(),
  payments: z.array(PaymentView),
  nextCursor: z.string().nullable(),
  daily: z.object({ spent: z.string(), reserved: z.string(), limit: z.string() }),
});
export type PaymentHistory = z.infer<typeof PaymentHistory>;

const SessionState = z.union([
  z.object({ signedIn: z.literal(true), address: z.string(), chainId: z.number(), expiresAt: z.string() }),
  z.object({ signedIn: z.literal(false) }),
]);
export type SessionState = z.infer<typeof SessionState>;

/** A refused request, with what the server said. */
export class RequestProblemError extends Error {
  constructor(readonly problem: RequestProblem) {
    super(problem.detail);
  }
}

export type HistoryFilters = { status?: PaymentStatus; service?: string; before?: string };

/** `/api/payments?…` for the signed-in wallet; `csv` for the download link. */
export function historyUrl(filters: HistoryFilters, format: "json" | "csv" = "json"): string {
  const params = new URLSearchParams();
  if (filters.status) params.set("status", filters.status);
  if (filters.service) params.set("service", filters.service);
  if (filters.before) params.set("before", filters.before);
  if (format === "csv") params.set("format", "csv");
  const query = params.toString();
  return `/api/payments${query ? `?${query}` : ""}`;
}

async function readJson<T>(response: Response, schema: z.ZodType<T>): Promise<T> {
  if (!response.ok) throw new RequestProblemError(await readProblem(response));
  const parsed = schema.safeParse(await response.json());
  if (!parsed.success) throw new Error("The server's answer is not in the expected shape.");
  return parsed.data;
}

export async function fetchPaymentHistory(filters: HistoryFilters, signal?: AbortSignal): Promise<PaymentHistory> {
  const response = await fetch(historyUrl(filters), { headers: { Accept: "application/json" }, cache: "no-store", signal });
  return readJson(response, PaymentHistory);
}

export async function fetchSession(signal?: AbortSignal): Promise<SessionState> {
  return readJson(await fetch("/api/auth/session", { cache: "no-store", signal }), SessionState);
}

/**
 * Sign-In with Ethereum: a nonce from the server, an EIP-4361 message for this site and chain
 * signed by the wallet, and the server's session cookie in return.
 */
export async function signInWithEthereum(options: {
  address: `0x${string}`;
  chainId: number;
  signMessage: (message: string) => Promise<`0x${string}`>;
}): Promise<SessionState> {
  const { nonce } = await readJson(await fetch("/api/auth/nonce", { cache: "no-store" }), z.object({ nonce: z.string() }));
  const message = createSiweMessage({
    domain: window.location.host,
    address: options.address,
    statement: "Sign in to see the payments of this wallet. This signature costs nothing and moves no money.",
    uri: window.location.origin,
    version: "1",
    chainId: options.chainId,
    nonce,
    issuedAt: new Date(),
    expirationTime: new Date(Date.now() + 5 * 60_000),
  });
  const signature = await options.signMessage(message);
  const response = await fetch("/api/auth/siwe", {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ message, signature }),
  });
  return readJson(response, SessionState);
}

export async function signOut(): Promise<void> {
  await fetch("/api/auth/session", { method: "DELETE" });
}
