import { describe, expect, it } from "vitest";
import { decodeAll, encodeEvent, PaymentEvent } from "./index";
import { deliveredResultOf, isBoundedJson, MAX_ASKED_BODY_CHARS, MAX_RESULT_DEPTH, MAX_RESULT_JSON_CHARS } from "./delivered-result";

const weather = { demo: true, note: "made up", city: "Lisbon", temperatureCelsius: 21, forecast: [{ day: "day 1", highCelsius: 24 }] };

function nested(depth: number): unknown {
  let value: unknown = "leaf";
  for (let level = 0; level < depth; level += 1) value = { inner: value };
  return value;
}

describe("isBoundedJson", () => {
  it("takes JSON values within the size and depth bounds", () => {
    for (const value of [null, true, 0, -1.5, "text", [], {}, weather, nested(MAX_RESULT_DEPTH)]) expect(isBoundedJson(value)).toBe(true);
  });

  it("refuses values that are not JSON", () => {
    for (const value of [undefined, Number.NaN, Number.POSITIVE_INFINITY, 1n, () => 1, new Date(0), new Map(), [undefined], { a: Symbol("x") }]) {
      expect(isBoundedJson(value)).toBe(false);
    }
  });

  it("refuses a value one level too deep, and a deep one at once without a stack overflow", () => {
    expect(isBoundedJson(nested(MAX_RESULT_DEPTH + 1))).toBe(false);
    let deep: unknown = [];
    for (let level = 0; level < 200_000; level += 1) deep = [deep];
    expect(isBoundedJson(deep)).toBe(false);
  });

  it("refuses JSON longer than the bound, exactly at it", () => {
    // A string of n characters is n + 2 characters of JSON.
    expect(isBoundedJson("x".repeat(MAX_RESULT_JSON_CHARS - 2))).toBe(true);
    expect(isBoundedJson("x".repeat(MAX_RESULT_JSON_CHARS - 1))).toBe(false);
    expect(isBoundedJson(Array.from({ length: 5_000 }, (_, index) => ({ index })))).toBe(false);
  });
});

describe("deliveredResultOf", () => {
  it("carries the data the agent read, what was asked, and the content type", () => {
    expect(deliveredResultOf({ contentType: "application/json", content: weather, truncated: false }, { method: "POST", body: '{"city":"Lisbon"}' })).toEqual({
      result: { contentType: "application/json", data: weather, truncated: false, request: { method: "POST", body: '{"city":"Lisbon"}' } },
    });
  });

  it("drops data over the bounds (never cuts it), and a body too long to show on its own", () => {
    expect(deliveredResultOf({ contentType: "text/plain", content: "x".repeat(MAX_RESULT_JSON_CHARS), truncated: false }, { method: "GET" })).toEqual({});
    expect(deliveredResultOf({ contentType: "application/json", content: nested(MAX_RESULT_DEPTH + 1), truncated: false }, { method: "GET" })).toEqual({});
    const long = deliveredResultOf(
      { contentType: "application/json", content: { ok: true }, truncated: false },
      { method: "POST", body: "y".repeat(MAX_ASKED_BODY_CHARS + 1) },
    );
    expect(long).toEqual({ result: { contentType: "application/json", data: { ok: true }, truncated: false, request: { method: "POST" } } });
  });
});

describe("the delivered event's result on the wire", () => {
  it("travels in a p: line and is read back", () => {
    const event = {
      id: "pay_1",
      status: "delivered" as const,
      ...deliveredResultOf({ contentType: "application/json", content: weather, truncated: false }, { method: "GET" }),
    };
    const [item] = decodeAll(encodeEvent({ type: "payment", payment: event }, "plain"));
    expect(item).toEqual({ kind: "event", event: { type: "payment", payment: event } });
  });

  it("a result over the bounds is dropped, and the event that carries it is still read", () => {
    const oversized = { contentType: "text/plain", data: "x".repeat(MAX_RESULT_JSON_CHARS + 10), truncated: false };
    const parsed = PaymentEvent.safeParse({ id: "pay_1", status: "delivered", message: "delivered", result: oversized });
    expect(parsed.success).toBe(true);
    expect(parsed.data).toEqual({ id: "pay_1", status: "delivered", message: "delivered" });
    const [item] = decodeAll(`p:${JSON.stringify({ id: "pay_1", status: "delivered", result: { ...oversized, data: nested(MAX_RESULT_DEPTH + 2) } })}\n`);
    expect(item).toEqual({ kind: "event", event: { type: "payment", payment: { id: "pay_1", status: "delivered" } } });
  });
});
