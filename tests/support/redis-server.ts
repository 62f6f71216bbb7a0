/**
 * Starts a throwaway redis-server (Debian package `redis-server`) for tests: 127.0.0.1, a free
 * port, no persistence. It is a child of a tiny shell watchdog that kills it when our stdin
 * pipe closes, so it also dies when the test process dies without running any cleanup.
 */
import { spawn } from "node:child_process";
import { accessSync, constants } from "node:fs";
import { createConnection, createServer } from "node:net";
import { delimiter, join } from "node:path";

export type RedisServerHandle = {
  /** redis://127.0.0.1:<port> */
  url: string;
  port: number;
  /** Stops the server and waits until it has exited. Safe to call twice. */
  stop(): Promise<void>;
};

const INSTALL_HINT =
  "redis-server is not installed, but the Redis store tests need it. Install it with " +
  "`apt-get update && apt-get install -y redis-server`, or set SKIP_REDIS_TESTS=1 to skip those tests.";

/** True when SKIP_REDIS_TESTS=1: the only case in which Redis tests may be skipped. */
export const skipRedisTests = process.env.SKIP_REDIS_TESTS === "1";

/** The redis-server executable, or undefined when it is not installed. */
export function findRedisServer(): string | undefined {
  const candidates = [
    process.env.REDIS_SERVER_BIN,
    "/usr/bin/redis-server",
    ...(process.env.PATH ?? "")
      .split(delimiter)
      .filter(Boolean)
      .map((directory) => join(directory, "redis-server")),
  ];
  for (const candidate of candidates) {
    if (!candidate) continue;
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // Not here; try the next place.
    }
  }
  return undefined;
}

/** A port that was free a moment ago (the server may still lose a race; start retries). */
export async function findFreePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      const port = typeof address === "object" && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

// The watchdog: runs redis-server in the background, kills it when our pipe on stdin reaches
// end of file (we closed it, or we died), and exits with redis-server's status. The pipe is
// passed as fd 3 because a shell gives background jobs /dev/null as their stdin.
const WATCHDOG = [
  'server="$1"; shift',
  "exec 3<&0",
  '"$server" "$@" 3<&- </dev/null & pid=$!',
  '(cat <&3 >/dev/null; kill "$pid" 2>/dev/null) &',
  "exec 3<&-",
  'wait "$pid"',
].join("\n");

/**
 * @example
 * const redis = await startRedisServer();
 * const store = createStore({ redisUrl: redis.url });
 * // …
 * await store.close();
 * await redis.stop();
 */
export async function startRedisServer(
  options: {
    /** A fixed port (for example to restart a server where clients expect it); default: a free one. */
    port?: number;
    startTimeoutMs?: number;
  } = {},
): Promise<RedisServerHandle> {
  const executable = findRedisServer();
  if (!executable) throw new Error(INSTALL_HINT);
  const startTimeoutMs = options.startTimeoutMs ?? 10_000;
  if (options.port !== undefined) return startOnce(executable, options.port, startTimeoutMs);
  let lastError: unknown;
  // Another process may take the free port before redis-server binds it; then try another.
  for (let attempt = 0; attempt < 3; attempt += 1) {
    try {
      return await startOnce(executable, await findFreePort(), startTimeoutMs);
    } catch (error) {
      lastError = error;
    }
  }
  throw new Error(`redis-server did not start: ${lastError instanceof Error ? lastError.message : String(lastError)}`);
}

async function startOnce(executable: string, port: number, startTimeoutMs: number): Promise<RedisServerHandle> {
  const args = [
    "--port",
    String(port),
    "--bind",
    "127.0.0.1",
    "--save",
    "",
    "--appendonly",
    "no",
    "--daemonize",
    "no",
    "--protected-mode",
    "yes",
    "--loglevel",
    "warning",
  ];
  const child = spawn("/bin/sh", ["-c", WATCHDOG, "sh", executable, ...args], {
    stdio: ["pipe", "ignore", "pipe"],
  });
  let output = "";
  child.stderr?.on("data", (chunk: Buffer) => {
    output = (output + chunk.toString()).slice(-2000);
  });
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  let running = true;
  void exited.then(() => (running = false));
  // Normal exits close our end of the pipe anyway; this makes it explicit.
  const onExit = () => child.stdin?.destroy();
  process.once("exit", onExit);

  const stop = async () => {
    process.off("exit", onExit);
    child.stdin?.end();
    const killTimer = setTimeout(() => child.kill("SIGKILL"), 5000);
    await exited;
    clearTimeout(killTimer);
  };

  const deadline = Date.now() + startTimeoutMs;
  while (Date.now() < deadline) {
    if (!running) {
      await stop();
      throw new Error(`redis-server exited during start on port ${port}: ${output.trim() || "no output"}`);
    }
    if (await answersPing(port)) return { url: `redis://127.0.0.1:${port}`, port, stop: once(stop) };
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  await stop();
  throw new Error(`redis-server did not answer PING on port ${port} within ${startTimeoutMs} ms: ${output.trim()}`);
}

/** Sends an inline PING and waits briefly for +PONG. */
function answersPing(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = createConnection({ host: "127.0.0.1", port });
    let reply = "";
    const finish = (answer: boolean) => {
      socket.destroy();
      resolve(answer);
    };
    socket.setTimeout(500, () => finish(false));
    socket.once("error", () => finish(false));
    socket.once("connect", () => socket.write("PING\r\n"));
    socket.on("data", (chunk: Buffer) => {
      reply += chunk.toString();
      if (reply.includes("\r\n")) finish(reply.startsWith("+PONG"));
    });
  });
}

function once(action: () => Promise<void>): () => Promise<void> {
  let result: Promise<void> | undefined;
  return () => (result ??= action());
}
