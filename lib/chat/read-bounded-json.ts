/**
 * Reads a request body as JSON without ever holding more than `maxBytes`: a body that is too
 * large is refused as it arrives, not after it has been buffered.
 */
import { AppError } from "../errors";

export async function readBoundedJson(request: Request, maxBytes: number): Promise<unknown> {
  const declared = Number(request.headers.get("content-length") ?? "0");
  if (declared > maxBytes) throw new AppError("bad_request:too_large", { message: `The request body must be at most ${maxBytes} bytes.` });
  if (!request.body) throw new AppError("bad_request:json");
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > maxBytes) {
      await reader.cancel();
      throw new AppError("bad_request:too_large", { message: `The request body must be at most ${maxBytes} bytes.` });
    }
    chunks.push(value);
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
