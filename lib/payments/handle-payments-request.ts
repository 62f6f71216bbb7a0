import "server-only";
/**
 * `GET /api/payments`: one payer's payment journal, newest first, in pages, as JSON or CSV,
 * with what the server counts against that payer's daily limit. See README ("Payment history").
 */
import type { Env } from "../env";
import { problemResponse } from "../errors";
import { formatUsdc } from "../money";
import type { NetworkConfig } from "../network/network-config";
import type { Store } from "../store/store-types";
import { parseHistoryParams } from "./history-query";
import { payerFor, viewerOf } from "./history-access";
import { paymentsCsv } from "./payments-csv";
import { toPaymentView } from "./payment-view";
import { readHistoryPage } from "./read-history-page";

/** What the route needs; the app's dependencies (`lib/app/create-app-dependencies.ts`) provide it. */
export type PaymentsDependencies = {
  env: Pick<Env, "ADMIN_TOKEN" | "SESSION_SECRET" | "X402_NETWORK">;
  network: Pick<NetworkConfig, "chainId" | "explorerUrl" | "networkNames">;
  store: Pick<Store, "journal" | "ledger">;
  agentAccount: { address: `0x${string}` } | undefined;
  settings: { limitSettings: { defaults: { daily: bigint } } };
  now: () => number;
  /** A test's clock for the store's day window; unset, the store's own clock cuts it (agent-dependencies.ts). */
  storeClock?: () => number;
  /** The account paying under a wallet's grants; absent without a relayer. */
  grantAccountOf?: (wallet: `0x${string}`) => `0x${string}`;
};

export async function handlePaymentsRequest(request: Request, getDependencies: () => PaymentsDependencies): Promise<Response> {
  try {
    const deps = getDependencies();
    const now = deps.now();
    const viewer = viewerOf(request, { env: deps.env, chainId: deps.network.chainId, now });
    const url = new URL(request.url);
    const params = parseHistoryParams(url);
    const payer = payerFor(viewer, params.payer, deps.agentAccount?.address, deps.grantAccountOf);
    const [page, spending] = await Promise.all([
      readHistoryPage(deps.store.journal, { payer, status: params.status, service: params.service, before: params.before, limit: params.limit }),
      // The day's window is cut on the store's clock (rows come from every instance); only a
      // test's injected clock is passed down.
      deps.store.ledger.spentToday(payer, deps.storeClock ? { now: deps.storeClock() } : {}),
    ]);
    const payments = page.payments.map((record) => toPaymentView(record, deps.network));
    const nextCursor = page.nextCursor === undefined ? null : new Date(page.nextCursor).toISOString();
    const headers = new Headers({ "Cache-Control": "no-store", Vary: "Cookie, Authorization, Accept" });
    if (nextCursor) {
      const next = new URL(url);
      next.searchParams.set("before", nextCursor);
      headers.set("Link", `<${next.pathname}${next.search}>; rel="next"`);
    }
    if (wantsCsv(request, params.format)) {
      headers.set("Content-Type", "text/csv; charset=utf-8; header=present");
      headers.set("Content-Disposition", `attachment; filename="payments-${payer.toLowerCase()}-${new Date(now).toISOString().slice(0, 10)}.csv"`);
      return new Response(paymentsCsv(payments), { headers });
    }
    const daily = {
      spent: formatUsdc(spending.settled),
      reserved: formatUsdc(spending.reserved),
      // The server's default; a chat request may ask for a lower one, never a higher one than the cap.
      limit: formatUsdc(deps.settings.limitSettings.defaults.daily),
    };
    return Response.json({ payer, payments, nextCursor, daily }, { headers });
  } catch (error) {
    return problemResponse(error);
  }
}

function wantsCsv(request: Request, format: "json" | "csv" | undefined): boolean {
  if (format) return format === "csv";
  return /(^|,)\s*text\/csv\s*(;|,|$)/i.test(request.headers.get("accept") ?? "");
}
