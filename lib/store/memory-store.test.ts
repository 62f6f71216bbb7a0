import { describe, expect, it } from "vitest";
import { createMemoryStore } from "./create-memory-store";
import { createStore } from "./create-store";
import { describeStoreContract } from "./store-contract";

// One process has one memory store: "instances" of it are the same object.
describeStoreContract("memory", (count) => Array<ReturnType<typeof createMemoryStore>>(count).fill(createMemoryStore()));

describe("createStore", () => {
  it("uses memory when no Redis URL is given", async () => {
    const store = createStore({});
    expect(store.kind).toBe("memory");
    await store.close();
  });

  it("treats an empty Redis URL as none", () => {
    expect(createStore({ redisUrl: "" }).kind).toBe("memory");
  });
});
