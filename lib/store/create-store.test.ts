import { afterEach, describe, expect, it, vi } from "vitest";
import { AppError } from "../errors";
import { resetEnvForTests } from "../env";
import { createStore, getStore, resetStoreForTests } from "./create-store";

describe("createStore", () => {
  it("uses memory when no Redis URL is given, or an empty one", async () => {
    expect(createStore().kind).toBe("memory");
    expect(createStore({ redisUrl: "" }).kind).toBe("memory");
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

  it("creates one store per process from REDIS_URL", () => {
    vi.stubEnv("REDIS_URL", "");
    vi.stubEnv("VERCEL", "");
    resetEnvForTests();
    const store = getStore();
    expect(store.kind).toBe("memory");
    expect(getStore()).toBe(store);
  });

  it("refuses in-memory state on Vercel, where each instance would keep its own budget", () => {
    vi.stubEnv("REDIS_URL", "");
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

  it("uses Redis when REDIS_URL is set", () => {
    vi.stubEnv("REDIS_URL", "redis://127.0.0.1:1");
    resetEnvForTests();
    expect(getStore().kind).toBe("redis");
  });
});
