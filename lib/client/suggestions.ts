/** The browser's side of `GET /api/suggestions`: the empty chat's example requests, checked with zod. */
import { z } from "zod";
import { UsdcDecimal } from "@/lib/stream/wire-primitives";

const SuggestionsBody = z.object({
  suggestions: z.array(z.object({ text: z.string().min(1).max(200), service: z.string().max(200), price: UsdcDecimal })).max(10),
});
export type Suggestion = z.infer<typeof SuggestionsBody>["suggestions"][number];

/** The suggestions, or none when the server has none or answers anything unexpected. */
export async function fetchSuggestions(signal?: AbortSignal): Promise<Suggestion[]> {
  try {
    const response = await fetch("/api/suggestions", { headers: { Accept: "application/json" }, signal });
    if (!response.ok) return [];
    const parsed = SuggestionsBody.safeParse(await response.json());
    return parsed.success ? parsed.data.suggestions : [];
  } catch {
    return [];
  }
}
