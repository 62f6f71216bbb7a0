import { afterEach, describe, expect, it, vi } from "vitest";
import { AppError } from "../errors";
import { resetEnvForTests } from "../env";
import { createStore, getStore, resetStoreForTests } from "./create-store";

describe("createStore", () => {
  it("uses memory when given neither a database nor Redis (tests), the database when given one", async () => {
    expect(createStore().kind).toBe("memory");
    expect(createStore({ redisUrl: "" }).kind).toBe("memory");
    const store = createStore({ database: { kind: "pglite" } });
    expect(store.kind).toBe("database");
    await store.close();
  });

  it("keeps payment channels on the database store only", async () => {
    expect(createStore().channels).toBeUndefined();
    const redis = createStore({ redisUrl: "redis://127.0.0.1:1", log: () => {} });
    expect(redis.channels).toBeUndefined();
    await redis.close();
    const database = createStore({ database: { kind: "pglite" } });
    expect(database.channels).toBeDefined();
    await database.close();
  });

  it("uses Redis when a URL is given, without connecting until first use", async () => {
    const store = createStore({ redisUrl: "redis://127.0.0.1:1", log: () => {} });
    expect(store.kind).toBe("redis");
    await store.close();
  });
});

describe("getStore", () => {
  afterEach(async () => {
    vi.unstubAllEnvs();
    resetEnvForTests();
    await resetStoreForTests();
  });

  it("creates one durable store per process: the database unless Redis is configured", () => {
    vi.stubEnv("REDIS_URL", "");
    vi.stubEnv("VERCEL", "");
    resetEnvForTests();
    const store = getStore();
    expect(store.kind).toBe("database");
    expect(getStore()).toBe(store);
  });

  it.each([
    ["no Redis", { REDIS_URL: "", DATABASE_URL: "postgres://db.example/x" }],
    ["no lasting database", { REDIS_URL: "redis://127.0.0.1:1", DATABASE_URL: "" }],
  ])("refuses to run on Vercel with %s", (_case, variables) => {
    for (const [name, value] of Object.entries(variables)) vi.stubEnv(name, value);
    vi.stubEnv("VERCEL", "1");
    resetEnvForTests();
    let thrown: unknown;
    try {
      getStore();
    } catch (error) {
      thrown = error;
    }
    expect(AppError.isInstance(thrown) && thrown.code).toBe("unavailable:not_configured");
  });

  it("keeps money in the database even when REDIS_URL is set (Redis holds the rate limits)", () => {
    vi.stubEnv("REDIS_URL", "redis://127.0.0.1:1");
    resetEnvForTests();
    expect(getStore().kind).toBe("database");
  });
});
