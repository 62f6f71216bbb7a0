import "server-only";
/**
 * `GET /api/cron/reconcile`: runs the reconciler once, for Vercel Cron (which sends
 * `Authorization: Bearer $CRON_SECRET`). Without CRON_SECRET the route is closed (503), so an
 * unconfigured deployment never exposes it; a wrong or missing token is 401.
 */
import { timingSafeEqual } from "node:crypto";
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
    const report = await reconcilePendingPayments(reconcileDependenciesOf(deps));
    return Response.json(report, { headers: { "Cache-Control": "no-store" } });
  } catch (error) {
    return problemResponse(error);
  }
}

function sameSecret(given: string, expected: string): boolean {
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}
