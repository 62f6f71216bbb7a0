import "server-only";
/**
 * `GET /api/cron/reconcile`: runs the reconciler once (payments left undecided, then the float
 * of ended grants; lib/doors/reconcile-once.ts), for Vercel Cron (which sends
 * `Authorization: Bearer $CRON_SECRET`). Without CRON_SECRET the route is closed (503), so an
 * unconfigured deployment never exposes it; a wrong or missing token is 401.
 */
import { timingSafeEqual } from "node:crypto";
import type { AppDependencies } from "../doors/app-dependencies";
import { reconcileOnce } from "../doors/reconcile-once";
import { AppError, problemResponse } from "../errors";

export async function handleReconcileRequest(request: Request, getDependencies: () => AppDependencies): Promise<Response> {
  try {
    const deps = getDependencies();
    const secret = deps.env.CRON_SECRET;
    if (!secret) throw new AppError("unavailable:not_configured", { details: "CRON_SECRET is not set" });
    if (!sameSecret(request.headers.get("authorization") ?? "", `Bearer ${secret}`))
      throw new AppError("unauthorized", { headers: { "WWW-Authenticate": 'Bearer realm="cron"' } });
    const report = await reconcileOnce(deps);
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
