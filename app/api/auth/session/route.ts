import { handleSessionRequest, handleSignOutRequest } from "@/lib/sign-in/handle-auth-requests";
import { getAppDependencies } from "@/lib/app/create-app-dependencies";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

export function GET(request: Request): Promise<Response> {
  return handleSessionRequest(request, getAppDependencies);
}

export function DELETE(request: Request): Response {
  return handleSignOutRequest(request);
}
