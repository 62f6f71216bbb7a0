/**
 * A TCP proxy on 127.0.0.1 that delays every chunk, each way, by a fixed time: a database on
 * this machine reached as if it were across a network (a managed Postgres, another zone), so
 * that the gaps between an instance reading something and acting on it are as wide as they
 * are in a deployment. Order is kept (timers of one duration fire in the order they were set).
 */
import { createServer, connect, type Socket } from "node:net";

export type LatencyProxy = {
  /** The proxy's port on 127.0.0.1. */
  port: number;
  stop(): Promise<void>;
};

export async function startLatencyProxy(target: { host: string; port: number }, delayMs: number): Promise<LatencyProxy> {
  const sockets = new Set<Socket>();
  const server = createServer((client) => {
    const upstream = connect(target.port, target.host);
    for (const socket of [client, upstream]) {
      sockets.add(socket);
      socket.on("close", () => sockets.delete(socket));
    }
    relay(client, upstream, delayMs);
    relay(upstream, client, delayMs);
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => resolve());
  });
  const address = server.address();
  const port = typeof address === "object" && address ? address.port : 0;
  return {
    port,
    stop: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

/** Copies `from` to `to`, each chunk `delayMs` later; an end or an error reaches the other side after the data before it. */
function relay(from: Socket, to: Socket, delayMs: number): void {
  from.on("data", (chunk: Buffer) => {
    setTimeout(() => {
      if (!to.destroyed) to.write(chunk);
    }, delayMs);
  });
  from.on("end", () => setTimeout(() => to.end(), delayMs));
  from.on("error", () => setTimeout(() => to.destroy(), delayMs));
  from.on("close", () => setTimeout(() => to.destroy(), delayMs + 1));
}
