import { getAppDependencies } from "@/lib/app/create-app-dependencies";
import { handlePaymentsRequest } from "@/lib/payments/handle-payments-request";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

export function GET(request: Request): Promise<Response> {
  return handlePaymentsRequest(request, getAppDependencies);
}
