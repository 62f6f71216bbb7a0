import "server-only";
/**
 * PGlite in a worker thread. Postgres compiled to WebAssembly runs synchronously on the thread
 * that calls it: in the server's own thread, every statement stalls every request (measured at
 * 50 concurrent paid turns: a quarter of the server thread's busy time was PGlite). In a worker
 * it runs beside the request loop, on another core when there is one. Statements still run one
 * at a time, in the order they are sent; the pool above decides that order.
 */
import { Worker } from "node:worker_threads";

/** What the pool needs from an embedded database: PGlite itself, or this worker. */
export type EmbeddedConnection = {
  query<R>(sql: string, parameters: unknown[]): Promise<{ rows: R[]; affectedRows?: number }>;
  close(): Promise<void>;
};

type Reply = { id: number; rows: unknown[]; affectedRows?: number } | { id: number; error: { message: string; code?: string; detail?: string } };

/**
 * The worker's program (CommonJS, evaluated; so no file has to survive bundling). PGlite is
 * imported from the working directory's node_modules, where `next start`, `npm run dev` and
 * the tests run.
 */
const PROGRAM = `
const { parentPort, workerData } = require("node:worker_threads");
(async () => {
  const { PGlite } = await import("@electric-sql/pglite");
  const database = new PGlite({ dataDir: workerData.dataDir, startParams: workerData.startParams });
  await database.waitReady;
  parentPort.on("message", async (message) => {
    if (message.close) {
      await database.close().catch(() => undefined);
      parentPort.postMessage({ closed: true });
      return;
    }
    try {
      const result = await database.query(message.sql, message.parameters);
      parentPort.postMessage({ id: message.id, rows: result.rows, affectedRows: result.affectedRows });
    } catch (error) {
      parentPort.postMessage({ id: message.id, error: { message: String(error && error.message || error), code: error && error.code, detail: error && error.detail } });
    }
  });
  parentPort.postMessage({ ready: true });
})().catch((error) => parentPort.postMessage({ failed: String(error && error.stack || error) }));
`;

const START_TIMEOUT_MS = 60_000;

export async function startPgliteWorker(options: { dataDir?: string; startParams: string[] }): Promise<EmbeddedConnection> {
  const worker = new Worker(PROGRAM, { eval: true, workerData: options });
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error("the database worker did not start in time")), START_TIMEOUT_MS);
    const settle = (error?: Error) => {
      clearTimeout(timer);
      worker.off("message", onMessage);
      worker.off("error", settle);
      if (error) reject(error);
      else resolve();
    };
    const onMessage = (message: { ready?: boolean; failed?: string }) => {
      if (message.ready) settle();
      else if (message.failed) settle(new Error(message.failed));
    };
    worker.on("message", onMessage);
    worker.on("error", settle);
  }).catch(async (error: unknown) => {
    await worker.terminate();
    throw error;
  });

  const waiting = new Map<number, { resolve(reply: Reply): void; reject(error: Error): void }>();
  let nextId = 1;
  let broken: Error | undefined;
  const fail = (error: Error) => {
    broken = error;
    for (const pending of waiting.values()) pending.reject(error);
    waiting.clear();
  };
  worker.on("error", fail);
  worker.on("exit", (code) => fail(new Error(`the database worker stopped (exit code ${code})`)));
  worker.on("message", (reply: Reply) => {
    const pending = waiting.get(reply.id);
    if (!pending) return;
    waiting.delete(reply.id);
    // An idle worker must not keep a finished process alive; a busy one must.
    if (waiting.size === 0) worker.unref();
    pending.resolve(reply);
  });
  worker.unref();

  return {
    async query<R>(sql: string, parameters: unknown[]) {
      if (broken) throw broken;
      const id = nextId++;
      const reply = await new Promise<Reply>((resolve, reject) => {
        waiting.set(id, { resolve, reject });
        worker.ref();
        worker.postMessage({ id, sql, parameters });
      });
      if ("error" in reply) throw Object.assign(new Error(reply.error.message), { code: reply.error.code, detail: reply.error.detail });
      return { rows: reply.rows as R[], affectedRows: reply.affectedRows };
    },
    async close() {
      if (broken) return;
      worker.ref();
      await new Promise<void>((resolve) => {
        const onMessage = (message: { closed?: boolean }) => {
          if (!message.closed) return;
          worker.off("message", onMessage);
          resolve();
        };
        worker.on("message", onMessage);
        worker.postMessage({ close: true });
      });
      await worker.terminate();
    },
  };
}
