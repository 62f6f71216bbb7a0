import { getAppDependencies } from "@/lib/app/create-app-dependencies";
import { getSuggestionsSource, handleSuggestionsRequest } from "@/lib/suggestions/handle-suggestions-request";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

/** Example requests for the empty chat, built from what discovery lists (see the handler). */
export function GET(): Promise<Response> {
  return handleSuggestionsRequest(() => getSuggestionsSource(getAppDependencies));
}
