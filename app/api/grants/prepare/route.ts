import { getAppDependencies } from "@/lib/app/create-app-dependencies";
import { grantsDependenciesOf } from "@/lib/app/grants-dependencies";
import { handlePrepareGrant } from "@/lib/grants/handle-grants-request";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

export function POST(request: Request): Promise<Response> {
  return handlePrepareGrant(request, () => grantsDependenciesOf(getAppDependencies()));
}
