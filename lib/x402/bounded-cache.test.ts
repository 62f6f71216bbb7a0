import { describe, expect, it } from "vitest";
import { BoundedCache } from "./bounded-cache";

describe("BoundedCache", () => {
  it("never holds more than its bound, dropping the least recently used first", () => {
    const cache = new BoundedCache<string, number>({ maxEntries: 3 });
    for (let index = 0; index < 10_000; index += 1) cache.set(`query ${index}`, index);
    expect(cache.size).toBe(3);
    cache.set("a", 1);
    cache.set("b", 2);
    cache.set("c", 3);
    expect(cache.get("a")).toBe(1); // a is now the most recently used
    cache.set("d", 4);
    expect(cache.get("b")).toBeUndefined();
    expect([cache.get("a"), cache.get("c"), cache.get("d")]).toEqual([1, 3, 4]);
  });

  it("forgets entries older than its time to live", () => {
    let now = 0;
    const cache = new BoundedCache<string, number>({ maxEntries: 10, ttlMs: 1_000, now: () => now });
    cache.set("k", 1);
    now = 999;
    expect(cache.get("k")).toBe(1);
    now = 1_000;
    expect(cache.get("k")).toBeUndefined();
    expect(cache.size).toBe(0);
  });
});
