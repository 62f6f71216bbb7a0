import "server-only";
/**
 * One ioredis client set up to fail closed: no offline queue, short timeouts, no retries of
 * a command. While Redis is unreachable every operation rejects within about a second with
 * AppError "unavailable:store"; nothing waits for long and nothing pretends to succeed. The
 * client keeps reconnecting in the background, so the store recovers by itself.
 */
import { Redis } from "ioredis";
import { AppError } from "../errors";
import { REDIS_SCRIPTS, type RedisScriptName } from "./redis-scripts";

export type RedisConnectionOptions = {
  url: string;
  /** How long to wait for a connection before failing an operation; default 1000 ms. */
  connectTimeoutMs?: number;
  /** How long one command may take before it is failed; default 1500 ms. */
  commandTimeoutMs?: number;
  /** Where connection problems are reported (throttled); defaults to a JSON line on stderr. */
  log?: (entry: Record<string, unknown>) => void;
};

/** What a caller is told to wait before retrying when the store is down. */
export const STORE_RETRY_AFTER_SECONDS = 5;
const LOG_INTERVAL_MS = 30_000;

/**
 * @example
 * const connection = new RedisConnection({ url: "redis://127.0.0.1:6379" });
 * const pong = await connection.run((client) => client.ping());
 * await connection.close();
 */
export class RedisConnection {
  readonly client: Redis;
  private readonly connectTimeoutMs: number;
  private readonly log: (entry: Record<string, unknown>) => void;
  private lastError: Error | undefined;
  private lastLoggedAt = 0;
  private closed = false;
  /** True from a connection failure until the client is ready again. */
  private down = false;
  private waiting: Promise<void> | undefined;

  constructor(options: RedisConnectionOptions) {
    this.connectTimeoutMs = options.connectTimeoutMs ?? 1000;
    this.log = options.log ?? ((entry) => console.warn(JSON.stringify(entry)));
    this.client = new Redis(options.url, {
      // Connect on first use, so importing or creating the store has no side effects.
      lazyConnect: true,
      // Fail commands at once while disconnected instead of queueing them for later.
      enableOfflineQueue: false,
      connectTimeout: this.connectTimeoutMs,
      commandTimeout: options.commandTimeoutMs ?? 1500,
      // A command that was in flight when the connection dropped fails instead of being resent
      // later; callers retry idempotently (reservation ids, idempotency keys).
      maxRetriesPerRequest: 0,
      retryStrategy: (attempt) => Math.min(100 * attempt, 1000),
      // RESP2 is understood by every Redis-compatible service (Upstash, Valkey, older Redis).
      protocol: 2,
      scripts: REDIS_SCRIPTS,
    });
    this.client.on("error", (error: Error) => this.noteError(error));
    this.client.on("close", () => {
      this.down = true;
    });
    this.client.on("ready", () => {
      this.down = false;
    });
  }

  /** Runs `operation` once the connection is ready; any failure becomes "unavailable:store". */
  async run<T>(operation: (client: Redis) => Promise<T>): Promise<T> {
    try {
      await this.ready();
      return await operation(this.client);
    } catch (error) {
      throw unavailable(error);
    }
  }

  /** Calls one of the Lua scripts of redis-scripts.ts (EVALSHA, falling back to EVAL). */
  async script(name: RedisScriptName, keys: string[], args: (string | number)[]): Promise<unknown> {
    return this.run((client) => {
      const call = (client as unknown as Record<string, (...values: (string | number)[]) => Promise<unknown>>)[name];
      if (typeof call !== "function") throw new Error(`Redis script ${name} is not defined`);
      return call.call(client, ...keys, ...args);
    });
  }

  async close(): Promise<void> {
    this.closed = true;
    if (this.client.status === "ready") {
      try {
        await this.client.quit();
        return;
      } catch {
        // Fall through: drop the socket instead.
      }
    }
    this.client.disconnect();
  }

  /**
   * Resolves when the client is ready. Only a connection that has not failed yet is waited for
   * (at most connectTimeoutMs); after a failure, calls reject at once until the background
   * reconnect succeeds, so a caller never waits out the reconnect delay.
   */
  private async ready(): Promise<void> {
    const client = this.client;
    if (client.status === "ready") return;
    if (this.closed || client.status === "end") throw new Error("the Redis connection is closed");
    if (this.down) throw this.lastError ?? new Error(`Redis is not connected (${client.status})`);
    if (client.status === "wait") {
      // The promise also rejects on failure; the shared wait below reports it.
      client.connect().catch(() => {});
    }
    this.waiting ??= this.waitUntilReady().finally(() => {
      this.waiting = undefined;
    });
    await this.waiting;
  }

  /** One set of listeners however many calls wait, so a burst of calls cannot leak listeners. */
  private waitUntilReady(): Promise<void> {
    const client = this.client;
    return new Promise<void>((resolve, reject) => {
      const cleanUp = () => {
        clearTimeout(timer);
        client.off("ready", onReady);
        client.off("error", onError);
        client.off("end", onEnd);
      };
      const onReady = () => {
        cleanUp();
        resolve();
      };
      const onError = (error: Error) => {
        cleanUp();
        reject(error);
      };
      const onEnd = () => onError(new Error("the Redis connection ended"));
      const timer = setTimeout(() => onError(new Error(`Redis did not become ready within ${this.connectTimeoutMs} ms`)), this.connectTimeoutMs + 250);
      client.once("ready", onReady);
      client.once("error", onError);
      client.once("end", onEnd);
    });
  }

  private noteError(error: Error): void {
    this.lastError = error;
    this.down = true;
    const now = Date.now();
    if (this.closed || now - this.lastLoggedAt < LOG_INTERVAL_MS) return;
    this.lastLoggedAt = now;
    this.log({ level: "warn", event: "store.redis.error", message: error.message });
  }
}

function unavailable(error: unknown): AppError {
  if (AppError.isInstance(error)) return error;
  return new AppError("unavailable:store", {
    retryAfterSeconds: STORE_RETRY_AFTER_SECONDS,
    details: error instanceof Error ? `${error.name}: ${error.message}` : String(error),
    cause: error,
  });
}
