import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { settleWithin, timeoutSignal } from "./timeout";

beforeEach(() => vi.useFakeTimers());
afterEach(() => vi.useRealTimers());

describe("timeoutSignal", () => {
  it("aborts with a TimeoutError when the time is up, as AbortSignal.timeout does", () => {
    const { signal } = timeoutSignal(1_000);
    vi.advanceTimersByTime(999);
    expect(signal.aborted).toBe(false);
    vi.advanceTimersByTime(1);
    expect(signal.aborted).toBe(true);
    expect(signal.reason).toMatchObject({ name: "TimeoutError" });
  });

  it("leaves no timer behind once cleared, and then never aborts", () => {
    const timeout = timeoutSignal(1_000);
    expect(vi.getTimerCount()).toBe(1);
    timeout.clear();
    timeout.clear();
    expect(vi.getTimerCount()).toBe(0);
    vi.advanceTimersByTime(5_000);
    expect(timeout.signal.aborted).toBe(false);
  });
});

describe("settleWithin", () => {
  it("answers with the work when it settles first, and stops the timer at once", async () => {
    await expect(settleWithin(Promise.resolve("done"), 1_000, "too slow")).resolves.toBe("done");
    await expect(settleWithin(Promise.reject(new Error("failed")), 1_000, "too slow")).rejects.toThrow("failed");
    expect(vi.getTimerCount()).toBe(0);
  });

  it("rejects with the message when the work takes longer", async () => {
    const pending = settleWithin(new Promise<never>(() => {}), 1_000, "no answer within 1000 ms");
    const outcome = expect(pending).rejects.toThrow("no answer within 1000 ms");
    await vi.advanceTimersByTimeAsync(1_000);
    await outcome;
    expect(vi.getTimerCount()).toBe(0);
  });
});
