/**
 * A response body handed on as a stream, for the few answers that are not read whole (an MCP
 * server's SSE event stream lives as long as its session). The same byte bound as a read-whole
 * body holds over the stream's whole life, and whatever ends it (the last byte, an error, the
 * reader cancelling) calls `onEnd` once, so the time bound of the request it belongs to is
 * released with it.
 */
import type { Readable } from "node:stream";
import { GuardedFetchError } from "./guarded-fetch-error";
import { discardBody } from "./hop-request";
import type { ByteStream } from "./read-capped-body";

/**
 * A Node stream read as a web stream's reader. Not `Readable.toWeb`: on Node 22 its stream,
 * cancelled while data still arrives, throws "Controller is already closed" out of an event
 * handler. Cancelling here destroys the Node stream at once (which drops its connection), even
 * while a read waits for the next chunk.
 */
export function byteStreamOf(body: Readable): ByteStream {
  const chunks = body[Symbol.asyncIterator]() as AsyncIterator<Uint8Array>;
  return {
    getReader: () => ({
      read: async () => {
        const next = await chunks.next();
        return next.done ? { done: true } : { done: false, value: next.value };
      },
      cancel: async () => discardBody(body),
    }),
  };
}

export type CappedStreamOptions = {
  maxBytes: number;
  host: string;
  /** What a failure while reading becomes (a timeout, a lost connection) for whoever reads on. */
  describeError: (error: unknown) => unknown;
  onEnd: () => void;
};

export function cappedStream(body: ByteStream, options: CappedStreamOptions): ReadableStream<Uint8Array> {
  const reader = body.getReader();
  let total = 0;
  let ended = false;
  const end = () => {
    if (ended) return;
    ended = true;
    options.onEnd();
  };
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      try {
        const { done, value } = await reader.read();
        if (done) {
          end();
          controller.close();
          return;
        }
        total += value.byteLength;
        if (total > options.maxBytes) throw new GuardedFetchError("response_too_large", { host: options.host });
        controller.enqueue(value);
      } catch (error) {
        // The reason is worked out before the timer is released: a timeout must still read as one.
        const reason = options.describeError(error);
        end();
        await reader.cancel().catch(() => undefined);
        controller.error(reason);
      }
    },
    async cancel(reason) {
      end();
      await reader.cancel(reason).catch(() => undefined);
    },
  });
}
