import { afterEach, describe, expect, it, vi } from "vitest";
import { newTurnId } from "./turn-id";

/** The server's rule for an Idempotency-Key (lib/chat/handle-chat-request.ts). */
const IDEMPOTENCY_KEY = /^[A-Za-z0-9._:-]{1,128}$/;

afterEach(() => {
  vi.restoreAllMocks();
});

describe("newTurnId", () => {
  it("is 128 bits from the random source, not a clock or a counter", () => {
    const random = vi.spyOn(crypto, "getRandomValues").mockImplementation((array) => {
      if (array instanceof Uint8Array) array.fill(0xab);
      return array;
    });
    expect(newTurnId("assistant")).toBe(`assistant-${"ab".repeat(16)}`);
    expect(random).toHaveBeenCalledTimes(1);
  });

  it("differs each time and is a valid Idempotency-Key", () => {
    const ids = new Set(Array.from({ length: 100 }, () => newTurnId("assistant")));
    expect(ids.size).toBe(100);
    for (const id of ids) expect(id).toMatch(IDEMPOTENCY_KEY);
  });
});
