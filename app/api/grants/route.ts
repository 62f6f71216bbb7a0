import { getAppDependencies } from "@/lib/app/create-app-dependencies";
import { grantsDependenciesOf } from "@/lib/app/grants-dependencies";
import { handleCreateGrant, handleListGrants } from "@/lib/grants/handle-grants-request";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

export function POST(request: Request): Promise<Response> {
  return handleCreateGrant(request, () => grantsDependenciesOf(getAppDependencies()));
}

export function GET(request: Request): Promise<Response> {
  return handleListGrants(request, () => grantsDependenciesOf(getAppDependencies()));
}
