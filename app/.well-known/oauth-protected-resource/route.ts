import { getEnv } from "@/lib/env";
import { handleResourceMetadataRequest } from "@/lib/mcp/handle-resource-metadata";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

export function GET(request: Request): Response {
  return handleResourceMetadataRequest(request, () => getEnv().APP_URL);
}
