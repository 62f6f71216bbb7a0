/**
 * Reads a response body into memory, refusing it once it grows past a byte limit. Bytes are
 * counted after content decoding, so a small compressed body cannot expand past the limit.
 */
import { GuardedFetchError } from "./guarded-fetch-error";

/** The part of a web ReadableStream this reader uses (undici's and the DOM's types differ). */
export type ByteStream = {
  getReader(): {
    read(): Promise<{ done: true; value?: undefined } | { done: false; value: Uint8Array }>;
    cancel(reason?: unknown): Promise<void>;
  };
};

/**
 * Reads `body` completely; throws `response_too_large` (and cancels the stream) when it
 * exceeds `maxBytes`.
 *
 * @example
 * const bytes = await readCappedBody(response.body, 1024 * 1024);
 */
export async function readCappedBody(body: ByteStream | null, maxBytes: number, host?: string): Promise<Uint8Array<ArrayBuffer>> {
  return body ? readCappedChunks(chunksOf(body.getReader()), maxBytes, host) : new Uint8Array(0);
}

/** A web stream reader's chunks; leaving early (the cap) cancels the stream. */
async function* chunksOf(reader: ReturnType<ByteStream["getReader"]>): AsyncGenerator<Uint8Array> {
  let done = false;
  try {
    for (;;) {
      const next = await reader.read();
      if (next.done) break;
      yield next.value;
    }
    done = true;
  } finally {
    if (!done) await reader.cancel().catch(() => undefined);
  }
}

/**
 * The same for a body read as chunks (a Node stream, or a web stream's reader above): leaving
 * the loop early, as the cap does, ends the stream, which drops its connection.
 */
export async function readCappedChunks(body: AsyncIterable<Uint8Array>, maxBytes: number, host?: string): Promise<Uint8Array<ArrayBuffer>> {
  const chunks: Uint8Array[] = [];
  let total = 0;
  for await (const chunk of body) {
    total += chunk.byteLength;
    if (total > maxBytes) throw new GuardedFetchError("response_too_large", { host });
    chunks.push(chunk);
  }
  return joined(chunks, total);
}

function joined(chunks: Uint8Array[], total: number): Uint8Array<ArrayBuffer> {
  const bytes = new Uint8Array(total);
  let offset = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return bytes;
}
