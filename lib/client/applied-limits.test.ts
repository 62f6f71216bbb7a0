import { describe, expect, it } from "vitest";
import { describeAppliedLimits } from "./applied-limits";

describe("describeAppliedLimits", () => {
  it("names each lowered limit with its amount and whose limit it is", () => {
    expect(describeAppliedLimits("per-payment=0.5 (budget), per-request=1 (requested), daily=5 (budget); clamped=daily")).toBe(
      "Your limits were lowered to what you may spend: daily 5 USDC (your budget).",
    );
    expect(describeAppliedLimits("per-payment=10 (server cap), per-request=2 (default), daily=0.2 (wallet cap); clamped=per-payment,daily")).toBe(
      "Your limits were lowered to what you may spend: per-payment 10 USDC (the server's cap), daily 0.2 USDC (the agent wallet's daily cap).",
    );
  });

  it("says nothing when nothing was lowered, or the header is missing or not ours", () => {
    expect(describeAppliedLimits("per-payment=1 (default), per-request=2 (default), daily=10 (default)")).toBeUndefined();
    expect(describeAppliedLimits(null)).toBeUndefined();
    expect(describeAppliedLimits("daily=<script> (budget); clamped=daily")).toBeUndefined();
    expect(describeAppliedLimits(`${"x".repeat(500)}; clamped=daily`)).toBeUndefined();
  });
});
