import { handleSessionRequest, handleSignOutRequest } from "@/lib/sign-in/handle-auth-requests";
import { getChatDependencies } from "@/lib/chat/chat-dependencies";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

export function GET(request: Request): Promise<Response> {
  return handleSessionRequest(request, getChatDependencies);
}

export function DELETE(request: Request): Response {
  return handleSignOutRequest(request);
}
