import type { IncomingMessage } from "node:http";

/** Larger than any x402 verify or settle request, small enough that nobody can exhaust memory. */
const MAX_BODY_BYTES = 256 * 1024;

export type JsonBodyResult = { ok: true; value: unknown } | { ok: false; status: 400 | 413; detail: string };

/** Reads a request body as JSON, refusing bodies over the limit and text that is not JSON. */
export async function readJsonBody(request: IncomingMessage): Promise<JsonBodyResult> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request) {
    const buffer = chunk as Buffer;
    size += buffer.length;
    if (size > MAX_BODY_BYTES) return { ok: false, status: 413, detail: `the body is larger than ${MAX_BODY_BYTES} bytes` };
    chunks.push(buffer);
  }
  try {
    return { ok: true, value: JSON.parse(Buffer.concat(chunks).toString("utf8")) as unknown };
  } catch {
    return { ok: false, status: 400, detail: "the body is not valid JSON" };
  }
}
