/**
 * The two framings of the stream. `sse` (the default) sends each protocol line as one
 * Server-Sent Event; `plain` sends bare `<prefix>:<json>` lines for clients that ask for
 * `Accept: text/plain`.
 */
export type Framing = "sse" | "plain";

export const CONTENT_TYPE_BY_FRAMING: Record<Framing, string> = {
  sse: "text/event-stream; charset=utf-8",
  plain: "text/plain; charset=utf-8",
};

/**
 * Picks the framing from an `Accept` header: plain only when the client names `text/plain`
 * and does not name `text/event-stream`, so browsers and EventSource-style clients get SSE.
 */
export function framingForAccept(accept: string | null | undefined): Framing {
  if (!accept) return "sse";
  const types = accept
    .toLowerCase()
    .split(",")
    .map((part) => part.split(";")[0]?.trim() ?? "");
  if (types.includes("text/event-stream")) return "sse";
  return types.includes("text/plain") ? "plain" : "sse";
}
