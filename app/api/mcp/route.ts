import { getAppDependencies } from "@/lib/app/create-app-dependencies";
import { handleMcpRequest } from "@/lib/mcp/handle-mcp-request";

// As the chat: the spec's limit for one request; a paying call keeps its own deadline shorter.
export const maxDuration = 50;
export const runtime = "nodejs";
export const dynamic = "force-dynamic";

export function POST(request: Request): Promise<Response> {
  return handleMcpRequest(request, getAppDependencies);
}

// Stateless: no standalone event stream (GET) and no session to end (DELETE); both answer 405.
export const GET = POST;
export const DELETE = POST;
