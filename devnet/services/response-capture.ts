import type { OutgoingHttpHeaders, ServerResponse } from "node:http";

/** A response as it went out: status, headers and body. */
export type CapturedResponse = { status: number; headers: OutgoingHttpHeaders; body: Buffer };

/**
 * Records what a handler writes to `response` (through `writeHead` and `end`, as every demo
 * handler answers), so a deduplicating service can later send the very same answer again,
 * whatever headers other extensions added to it. Returns a reader for the captured response,
 * undefined until the status was written.
 */
export function captureResponse(response: ServerResponse): () => CapturedResponse | undefined {
  let status: number | undefined;
  let given: OutgoingHttpHeaders = {};
  const chunks: Buffer[] = [];
  const writeHead = response.writeHead.bind(response) as (...args: unknown[]) => ServerResponse;
  const end = response.end.bind(response) as (...args: unknown[]) => ServerResponse;
  (response as unknown as { writeHead: (...args: unknown[]) => ServerResponse }).writeHead = (...args: unknown[]) => {
    status = typeof args[0] === "number" ? args[0] : undefined;
    // writeHead(status, headers) or writeHead(status, message, headers).
    const headers = args.slice(1).find((part) => typeof part === "object" && part !== null && !Array.isArray(part));
    if (headers) given = { ...(headers as OutgoingHttpHeaders) };
    return writeHead(...args);
  };
  (response as unknown as { end: (...args: unknown[]) => ServerResponse }).end = (...args: unknown[]) => {
    const chunk = args[0];
    if (typeof chunk === "string" || chunk instanceof Uint8Array) chunks.push(Buffer.from(chunk));
    return end(...args);
  };
  return () => (status === undefined ? undefined : { status, headers: { ...response.getHeaders(), ...given }, body: Buffer.concat(chunks) });
}

/** The value of a header, whatever the case of its name. */
export function headerValue(headers: OutgoingHttpHeaders, name: string): string | undefined {
  const key = Object.keys(headers).find((candidate) => candidate.toLowerCase() === name.toLowerCase());
  const value = key === undefined ? undefined : headers[key];
  return value === undefined ? undefined : String(value);
}
