import type { ServerResponse } from "node:http";

/** Sends a JSON body. Bigints (money in base units) are written as decimal strings. */
export function sendJson(response: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  if (response.headersSent || response.destroyed) return;
  const text = JSON.stringify(body, (_key, value: unknown) => (typeof value === "bigint" ? value.toString() : value));
  response.writeHead(status, { "Content-Type": "application/json; charset=utf-8", "Cache-Control": "no-store", ...headers });
  response.end(text);
}

/** Sends an RFC 9457 problem: a short title and a detail for a person, nothing internal. */
export function sendProblem(response: ServerResponse, status: number, title: string, detail: string, extra: Record<string, unknown> = {}): void {
  if (response.headersSent || response.destroyed) return;
  response.writeHead(status, { "Content-Type": "application/problem+json; charset=utf-8", "Cache-Control": "no-store" });
  response.end(JSON.stringify({ type: "about:blank", title, status, detail, ...extra }));
}
