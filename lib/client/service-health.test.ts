import { describe, expect, it } from "vitest";
import { serviceHealth } from "./service-health";

const NOW = Date.UTC(2026, 0, 1, 12);
const none = { delivered: 0, failedAfterPayment: 0, refused: 0, overSettled: 0 };

describe("serviceHealth", () => {
  it("says when it was checked and what our payments came to", () => {
    expect(serviceHealth({ ...none, checkedAt: NOW - 5_000 }, NOW)).toEqual({ text: "checked just now", tone: "good" });
    expect(serviceHealth({ ...none, checkedAt: NOW - 120_000, delivered: 3 }, NOW)).toEqual({
      text: "checked 2 min ago · delivered 3 of 3 paid calls",
      tone: "good",
    });
    expect(serviceHealth({ ...none, delivered: 0, failedAfterPayment: 1 }, NOW)).toEqual({
      text: "delivered 0 of 1 paid call · 1 failed after payment",
      tone: "bad",
    });
  });

  it("shows nothing when nothing is known", () => {
    expect(serviceHealth(undefined, NOW)).toBeUndefined();
    expect(serviceHealth(none, NOW)).toBeUndefined();
  });
});
