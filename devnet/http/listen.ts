import type { Server } from "node:http";
import type { AddressInfo } from "node:net";

/** Devnet servers listen on loopback only: nothing here is meant to be reachable from another machine. */
export const LOOPBACK_HOST = "127.0.0.1";

/** Starts listening on 127.0.0.1 (port 0 picks a free one) and resolves with the port. */
export function listen(server: Server, port = 0): Promise<number> {
  return new Promise((resolve, reject) => {
    const onError = (error: Error) => reject(error);
    server.once("error", onError);
    server.listen(port, LOOPBACK_HOST, () => {
      server.off("error", onError);
      resolve((server.address() as AddressInfo).port);
    });
  });
}

/**
 * Stops accepting connections and drops the open ones (keep-alive sockets would otherwise hold
 * `close` open for seconds). Resolves when the server is fully closed; safe on a closed server.
 */
export function closeServer(server: Server): Promise<void> {
  if (!server.listening) return Promise.resolve();
  return new Promise((resolve) => {
    server.close(() => resolve());
    server.closeAllConnections();
  });
}
