import { getAppDependencies } from "@/lib/app/create-app-dependencies";
import { handleChatRequest } from "@/lib/chat/handle-chat-request";

// The spec's limit for one request; the handler keeps its own deadline a few seconds shorter.
export const maxDuration = 50;
export const runtime = "nodejs";
export const dynamic = "force-dynamic";

export function POST(request: Request): Promise<Response> {
  return handleChatRequest(request, getAppDependencies);
}
