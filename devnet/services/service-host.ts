import { createServer, type Server } from "node:http";
import { sendProblem } from "../http/json-response";
import { closeServer, listen, LOOPBACK_HOST } from "../http/listen";
import type { PaidServiceHandler } from "./paid-request-handler";

/** One demo service's own server (its own port, like a separate company's API). */
export type ServiceHost = {
  port: number;
  origin: string;
  /** Attaches the request handler, once it exists (it needs the host's URL first). */
  attach(handler: PaidServiceHandler): void;
  /** Closes or reopens the port: offline means connections are refused. */
  setOnline(online: boolean): Promise<void>;
  stop(): Promise<void>;
};

/** Opens a port for a service; requests get 503 until a handler is attached. */
export async function startServiceHost(): Promise<ServiceHost> {
  let handler: PaidServiceHandler | undefined;
  const server: Server = createServer((request, response) => {
    if (!handler) return sendProblem(response, 503, "Starting", "The service is still starting.");
    handler.handle(request, response).catch(() => sendProblem(response, 500, "Service error", "The service failed. Nothing was charged."));
  });
  const port = await listen(server);
  let stopped = false;
  return {
    port,
    origin: `http://${LOOPBACK_HOST}:${port}`,
    attach(next) {
      handler = next;
    },
    async setOnline(online) {
      if (stopped || online === server.listening) return;
      if (online) await listen(server, port);
      else await closeServer(server);
    },
    async stop() {
      stopped = true;
      await closeServer(server);
    },
  };
}

/**
 * A port that refuses connections: bound for a moment to learn a free number, then closed,
 * so the "offline" service has a believable URL where nothing listens.
 */
export async function reserveRefusingPort(): Promise<number> {
  const server = createServer();
  const port = await listen(server);
  await closeServer(server);
  return port;
}
