/**
 * `GET /.well-known/oauth-protected-resource`: the MCP endpoint's protected-resource metadata
 * (RFC 9728), named by the 401 challenge of `/api/mcp`. Public facts only: where the resource
 * is and that it takes a bearer key in the `Authorization` header.
 */
import { problemResponse } from "../errors";
import { protectedResourceMetadata, siteOrigin } from "./mcp-access";

export function handleResourceMetadataRequest(request: Request, appUrl: () => string | undefined): Response {
  try {
    return Response.json(protectedResourceMetadata(siteOrigin(appUrl(), request)), {
      headers: {
        "Cache-Control": "public, max-age=300",
        // Browser-based MCP clients read it from another origin; it holds nothing private.
        "Access-Control-Allow-Origin": "*",
      },
    });
  } catch (error) {
    return problemResponse(error);
  }
}
