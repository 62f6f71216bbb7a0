/**
 * The reconciler's timer: it runs what it is given (the composition root gives one reconciler
 * run: payments, then ended grants' float) each interval, never two runs at once, one timer per
 * process, and a run that throws is logged, never thrown out of the timer.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { startReconcilerTimer } from "./reconciler-timer";

beforeEach(() => {
  vi.useFakeTimers();
});
afterEach(() => {
  vi.useRealTimers();
  vi.restoreAllMocks();
});

describe("the reconciler's timer", () => {
  it("runs each interval, never two runs at once, and only one timer per process", async () => {
    let release: () => void = () => {};
    let runs = 0;
    const run = () => {
      runs += 1;
      return new Promise<void>((resolve) => (release = resolve));
    };
    const stop = startReconcilerTimer(run, 1_000);
    const other = vi.fn(async () => {});
    expect(startReconcilerTimer(other, 1_000)).toBe(stop);
    await vi.advanceTimersByTimeAsync(1_000);
    expect(runs).toBe(1);
    // Still running: the next ticks do not start another.
    await vi.advanceTimersByTimeAsync(3_000);
    expect(runs).toBe(1);
    release();
    await vi.advanceTimersByTimeAsync(1_000);
    expect(runs).toBe(2);
    release();
    stop();
    await vi.advanceTimersByTimeAsync(5_000);
    expect(runs).toBe(2);
    expect(other).not.toHaveBeenCalled();
  });

  it("logs a run that throws and runs again at the next interval", async () => {
    const errors: string[] = [];
    vi.spyOn(console, "error").mockImplementation((line: string) => void errors.push(line));
    const run = vi.fn(async () => {
      throw new Error("database gone");
    });
    const stop = startReconcilerTimer(run, 1_000);
    await vi.advanceTimersByTimeAsync(2_000);
    stop();
    expect(run).toHaveBeenCalledTimes(2);
    expect(errors.map((line) => JSON.parse(line))).toEqual([
      expect.objectContaining({ event: "reconciler-run-failed", error: "Error: database gone" }),
      expect.objectContaining({ event: "reconciler-run-failed", error: "Error: database gone" }),
    ]);
  });
});
