/**
 * The chat's content-safety check on what an MCP call would send: a URL or a body that looks
 * like it carries a private key or a seed phrase is refused before it is logged, journaled or
 * sent to any service (lib/safety/content-safety.ts).
 */
import { inspectMessages } from "../safety/content-safety";

export function carriesSecret(...texts: (string | undefined)[]): boolean {
  const content = texts.filter((text): text is string => text !== undefined).join("\n");
  return !inspectMessages([{ role: "user", content }]).safe;
}

/** A body as the caller gave it, as text: what the check reads. */
export function bodyText(body: unknown): string | undefined {
  if (body === undefined) return undefined;
  return typeof body === "string" ? body : JSON.stringify(body);
}

export const SECRET_REFUSAL = "Refused: the request appears to contain a secret such as a private key or seed phrase. Nothing was sent or paid.";
