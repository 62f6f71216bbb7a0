/**
 * Reads a request body as JSON without ever holding more than `maxBytes` or waiting longer than
 * `timeoutMs`: a body that is too large is refused as it arrives, not after it has been
 * buffered, and one that trickles in is refused when the time is up. The limit covers the whole
 * body, not the pause between chunks, because a byte every few seconds would pass any pause
 * limit while holding the request open.
 */
import type { z } from "zod";
import { AppError } from "../errors";

export type ReadBoundedJsonOptions = { maxBytes: number; timeoutMs: number };

export async function readBoundedJson(request: Request, { maxBytes, timeoutMs }: ReadBoundedJsonOptions): Promise<unknown> {
  const declared = Number(request.headers.get("content-length") ?? "0");
  if (declared > maxBytes) throw new AppError("bad_request:too_large", { message: `The request body must be at most ${maxBytes} bytes.` });
  if (!request.body) throw new AppError("bad_request:json");
  const reader = request.body.getReader();
  let timer: ReturnType<typeof setTimeout> | undefined;
  const expired = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new AppError("request_timeout")), timeoutMs);
  });
  // Read only through the race below; this keeps a late expiry from being an unhandled rejection.
  expired.catch(() => {});
  const chunks: Uint8Array[] = [];
  let size = 0;
  try {
    for (;;) {
      const { done, value } = await Promise.race([reader.read(), expired]);
      if (done) break;
      size += value.byteLength;
      if (size > maxBytes) {
        await reader.cancel();
        throw new AppError("bad_request:too_large", { message: `The request body must be at most ${maxBytes} bytes.` });
      }
      chunks.push(value);
    }
  } catch (error) {
    // A slow sender may never answer the cancellation; it must not hold the refusal back.
    if (AppError.isInstance(error) && error.code === "request_timeout") void reader.cancel().catch(() => {});
    throw error;
  } finally {
    clearTimeout(timer);
  }
  const bytes = new Uint8Array(size);
  let offset = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, offset);
    offset += chunk.byteLength;
  }
  let text: string;
  try {
    text = new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch {
    throw new AppError("bad_request:json", { message: "The request body is not valid UTF-8." });
  }
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw new AppError("bad_request:json");
  }
}

/** Reads the body as `readBoundedJson` does and checks it with `schema`: a refusal names each field. */
export async function readBoundedBody<Schema extends z.ZodType>(request: Request, schema: Schema, limits: ReadBoundedJsonOptions): Promise<z.output<Schema>> {
  const parsed = schema.safeParse(await readBoundedJson(request, limits));
  if (parsed.success) return parsed.data;
  throw new AppError("bad_request:body", { errors: parsed.error.issues.map((issue) => ({ path: issue.path.join("."), message: issue.message })) });
}
