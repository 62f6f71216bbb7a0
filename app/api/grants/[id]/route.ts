import { getAppDependencies } from "@/lib/app/create-app-dependencies";
import { grantsDependenciesOf } from "@/lib/app/grants-dependencies";
import { handleRevokeGrant } from "@/lib/grants/handle-grants-request";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

export async function DELETE(request: Request, context: { params: Promise<{ id: string }> }): Promise<Response> {
  const { id } = await context.params;
  return handleRevokeGrant(request, id, () => grantsDependenciesOf(getAppDependencies()));
}
