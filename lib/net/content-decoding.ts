/**
 * An answer's body decoded as its `Content-Encoding` says, as `fetch` does: gzip (x-gzip),
 * deflate (zlib-wrapped or raw) and br, applied in reverse order; an unknown coding leaves the
 * body as it came. Decoded chunk by chunk, so whoever counts the bytes counts the decoded ones
 * and can stop a small compressed body before it expands past a bound.
 */
import { PassThrough, pipeline, Transform, type Readable, type TransformCallback } from "node:stream";
import zlib from "node:zlib";

/** What this side accepts, sent unless the caller chose: what the decoder below reads. */
export const ACCEPTED_ENCODINGS = "gzip, deflate, br";

/** More codings than this is an attack on the decoder, not an answer (fetch's bound too). */
const MAX_CODINGS = 5;

/** Lenient flushing, as browsers and curl decode: a body cut at a block boundary still reads. */
const ZLIB_LENIENT = { flush: zlib.constants.Z_SYNC_FLUSH, finishFlush: zlib.constants.Z_SYNC_FLUSH };

/**
 * "deflate" is meant as zlib-wrapped data, but servers also send it raw; which one is known from
 * the first two bytes (a zlib header: method 8 in the low nibble, and a multiple of 31).
 */
class InflateEither extends Transform {
  private inner: zlib.Inflate | zlib.InflateRaw | undefined;

  override _transform(chunk: Buffer, _encoding: BufferEncoding, done: TransformCallback): void {
    if (!this.inner) {
      const wrapped = chunk.length < 2 || ((chunk[0]! & 0x0f) === 8 && ((chunk[0]! << 8) | chunk[1]!) % 31 === 0);
      const inner = wrapped ? zlib.createInflate(ZLIB_LENIENT) : zlib.createInflateRaw(ZLIB_LENIENT);
      inner.on("data", (data: Buffer) => this.push(data));
      inner.on("error", (error) => this.destroy(error));
      this.inner = inner;
    }
    this.inner.write(chunk, () => done());
  }

  // Stopped with the stream (a body past its cap): the inner inflater stops with it.
  override _destroy(error: Error | null, done: (error: Error | null) => void): void {
    this.inner?.destroy();
    done(error);
  }

  override _flush(done: TransformCallback): void {
    if (!this.inner) return done();
    this.inner.once("end", () => done());
    this.inner.end();
  }
}

function decoderFor(coding: string): Transform | undefined {
  if (coding === "gzip" || coding === "x-gzip") return zlib.createGunzip(ZLIB_LENIENT);
  if (coding === "deflate") return new InflateEither();
  if (coding === "br") {
    return zlib.createBrotliDecompress({
      flush: zlib.constants.BROTLI_OPERATION_FLUSH,
      finishFlush: zlib.constants.BROTLI_OPERATION_FLUSH,
    });
  }
  return undefined;
}

/**
 * The body decoded, or the body itself when it has no coding or one this side does not know.
 * Throws on more than MAX_CODINGS codings (the body is then left to the caller to discard).
 */
export function decodedBody(body: Readable, contentEncoding: string | undefined): Readable {
  const codings = contentEncoding
    ? contentEncoding
        .toLowerCase()
        .split(",")
        .map((coding) => coding.trim())
    : [];
  if (codings.length > MAX_CODINGS) throw new Error(`too many content codings (${codings.length})`);
  const decoders: Transform[] = [];
  for (const coding of codings.reverse()) {
    const decoder = decoderFor(coding);
    if (!decoder) return body;
    decoders.push(decoder);
  }
  if (decoders.length === 0) return body;
  const decoded = new PassThrough();
  // An error anywhere (a garbled body, a lost connection) ends the decoded stream with it.
  pipeline([body, ...decoders, decoded], () => undefined);
  return decoded;
}
