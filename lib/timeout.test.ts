import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { boundedSignal, settleWithin, timeoutSignal } from "./timeout";

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

describe("boundedSignal", () => {
  it("aborts with the caller's reason when the caller aborts first", () => {
    const caller = new AbortController();
    const bounded = boundedSignal(caller.signal, 1_000);
    const reason = new Error("user cancelled");
    caller.abort(reason);
    expect(bounded.signal.aborted).toBe(true);
    expect(bounded.signal.reason).toBe(reason);
    expect(bounded.timedOut()).toBe(false);
    bounded.clear();
  });

  it("aborts with a TimeoutError when the time is up first, and says so", () => {
    const caller = new AbortController();
    const bounded = boundedSignal(caller.signal, 1_000);
    vi.advanceTimersByTime(999);
    expect(bounded.signal.aborted).toBe(false);
    vi.advanceTimersByTime(1);
    expect(bounded.signal.reason).toMatchObject({ name: "TimeoutError" });
    expect(bounded.timedOut()).toBe(true);
    caller.abort(new Error("too late"));
    expect(bounded.signal.reason).toMatchObject({ name: "TimeoutError" });
  });

  it("starts aborted when the caller already is, and works without a caller", () => {
    const reason = new Error("gone");
    expect(boundedSignal(AbortSignal.abort(reason), 1_000).signal.reason).toBe(reason);
    const alone = boundedSignal(undefined, 1_000);
    vi.advanceTimersByTime(1_000);
    expect(alone.timedOut()).toBe(true);
  });

  it("once cleared, leaves no timer and no listener on the caller's signal", () => {
    const caller = new AbortController();
    const removed = vi.spyOn(caller.signal, "removeEventListener");
    const bounded = boundedSignal(caller.signal, 1_000);
    bounded.clear();
    expect(vi.getTimerCount()).toBe(0);
    expect(removed).toHaveBeenCalledWith("abort", expect.any(Function));
    caller.abort(new Error("after the work"));
    vi.advanceTimersByTime(5_000);
    expect(bounded.signal.aborted).toBe(false);
  });
});
