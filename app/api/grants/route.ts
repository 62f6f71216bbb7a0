import { getChatDependencies } from "@/lib/chat/chat-dependencies";
import { grantsDependenciesOf } from "@/lib/chat/grants-dependencies";
import { handleCreateGrant, handleListGrants } from "@/lib/grants/handle-grants-request";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

export function POST(request: Request): Promise<Response> {
  return handleCreateGrant(request, () => grantsDependenciesOf(getChatDependencies()));
}

export function GET(request: Request): Promise<Response> {
  return handleListGrants(request, () => grantsDependenciesOf(getChatDependencies()));
}
