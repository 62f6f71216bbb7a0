import { getChatDependencies } from "@/lib/chat/chat-dependencies";
import { grantsDependenciesOf } from "@/lib/chat/grants-dependencies";
import { handlePrepareGrant } from "@/lib/grants/handle-grants-request";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

export function POST(request: Request): Promise<Response> {
  return handlePrepareGrant(request, () => grantsDependenciesOf(getChatDependencies()));
}
