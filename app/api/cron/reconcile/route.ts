import { getAppDependencies } from "@/lib/app/create-app-dependencies";
import { handleReconcileRequest } from "@/lib/cron/handle-reconcile-request";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";
export const maxDuration = 50;

export function GET(request: Request): Promise<Response> {
  return handleReconcileRequest(request, getAppDependencies);
}
