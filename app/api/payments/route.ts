import { getChatDependencies } from "@/lib/chat/chat-dependencies";
import { handlePaymentsRequest } from "@/lib/payments/handle-payments-request";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

export function GET(request: Request): Promise<Response> {
  return handlePaymentsRequest(request, getChatDependencies);
}
