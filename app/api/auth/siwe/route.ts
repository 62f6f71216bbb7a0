import { handleSignInRequest } from "@/lib/sign-in/handle-auth-requests";
import { getChatDependencies } from "@/lib/chat/chat-dependencies";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

export function POST(request: Request): Promise<Response> {
  return handleSignInRequest(request, getChatDependencies);
}
