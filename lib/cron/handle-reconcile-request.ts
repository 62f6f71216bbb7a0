import "server-only";
/**
 * `GET /api/cron/reconcile`: runs the reconciler once, for Vercel Cron (which sends
 * `Authorization: Bearer $CRON_SECRET`). Without CRON_SECRET the route is closed (503), so an
 * unconfigured deployment never exposes it; a wrong or missing token is 401.
 */
import { timingSafeEqual } from "node:crypto";
import { refundIdleChannels } from "../agent/purchase/channels/refund-idle-channels";
import { reconcilePendingPayments } from "../agent/purchase/reconcile-pending";
import { reconcileDependenciesOf, type AppDependencies } from "../doors/app-dependencies";
import { AppError, problemResponse } from "../errors";

export async function handleReconcileRequest(request: Request, getDependencies: () => AppDependencies): Promise<Response> {
  try {
    const deps = getDependencies();
    const secret = deps.env.CRON_SECRET;
    if (!secret) throw new AppError("unavailable:not_configured", { details: "CRON_SECRET is not set" });
    if (!sameSecret(request.headers.get("authorization") ?? "", `Bearer ${secret}`))
      throw new AppError("unauthorized", { headers: { "WWW-Authenticate": 'Bearer realm="cron"' } });
    const reconcile = reconcileDependenciesOf(deps);
    const report = await reconcilePendingPayments(reconcile);
    // Idle payment channels are refunded by the same run, as the timer does (CHANNEL_IDLE_REFUND_SECONDS).
    const refunds = reconcile.channelRefunds ? await refundIdleChannels(reconcile.channelRefunds) : undefined;
    const channelRefunds = refunds ? { channelRefunds: { refunded: refunds.refunded, failed: refunds.failed, amount: refunds.amount.toString() } } : {};
    return Response.json({ ...report, ...channelRefunds }, { headers: { "Cache-Control": "no-store" } });
  } catch (error) {
    return problemResponse(error);
  }
}

function sameSecret(given: string, expected: string): boolean {
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}
