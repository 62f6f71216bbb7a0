import { createServer, type Server } from "node:http";
import { connect } from "node:net";
import { sendProblem } from "../http/json-response";
import { closeServer, listen, LOOPBACK_HOST } from "../http/listen";
import type { PaidServiceHandler } from "./paid-request-handler";

/** One demo service's own server (its own port, like a separate company's API). */
export type ServiceHost = {
  port: number;
  origin: string;
  /** Attaches the request handler, once it exists (it needs the host's URL first). */
  attach(handler: Pick<PaidServiceHandler, "handle">): void;
  /** Closes or reopens the port: offline means connections are refused. */
  setOnline(online: boolean): Promise<void>;
  stop(): Promise<void>;
};

/** Opens a port for a service; requests get 503 until a handler is attached. */
export async function startServiceHost(): Promise<ServiceHost> {
  let handler: Pick<PaidServiceHandler, "handle"> | undefined;
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
 * Below the kernel's range for free ports (32768-60999 on Linux), nothing bound to port 0 (any
 * other test's server) can ever be handed this port, so it keeps refusing connections.
 */
const REFUSING_PORT_RANGE = { from: 20_000, to: 32_000 } as const;

/**
 * A port where nothing listens, so the "offline" service has a believable URL that refuses
 * connections. Picked outside the range free ports are drawn from, and checked.
 */
export async function findRefusingPort(): Promise<number> {
  const span = REFUSING_PORT_RANGE.to - REFUSING_PORT_RANGE.from;
  const start = Math.floor(Math.random() * span);
  for (let attempt = 0; attempt < 50; attempt++) {
    const port = REFUSING_PORT_RANGE.from + ((start + attempt * 7919) % span);
    if (await refusesConnections(port)) return port;
  }
  throw new Error("no refusing port found for the offline service");
}

function refusesConnections(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host: LOOPBACK_HOST, port });
    socket.once("connect", () => {
      socket.destroy();
      resolve(false);
    });
    socket.once("error", (error: NodeJS.ErrnoException) => resolve(error.code === "ECONNREFUSED"));
  });
}
