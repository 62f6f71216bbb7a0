import { handleSignInRequest } from "@/lib/sign-in/handle-auth-requests";
import { getAppDependencies } from "@/lib/app/create-app-dependencies";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

export function POST(request: Request): Promise<Response> {
  return handleSignInRequest(request, getAppDependencies);
}
