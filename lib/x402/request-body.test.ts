/** A paid call's body becomes exact text and a content type, or is refused with a reason. */
import { describe, expect, it } from "vitest";
import { BODY_CONTENT_TYPES, bodyTypeOf, chooseBodyType, encodeRequestBody, MAX_REQUEST_BODY_CHARS, RequestContentType } from "./request-body";

describe("encodeRequestBody", () => {
  it("sends fields as JSON, and JSON text as written", () => {
    expect(encodeRequestBody({ text: "hi", to: "fr", n: [1, { deep: true }] }, "json")).toEqual({
      ok: true,
      body: { type: "json", text: '{"text":"hi","to":"fr","n":[1,{"deep":true}]}', contentType: "application/json" },
    });
    expect(encodeRequestBody('{"a": 1}', "json")).toEqual({ ok: true, body: { type: "json", text: '{"a": 1}', contentType: "application/json" } });
  });

  it("refuses text that is not JSON as a JSON body, and JSON nested past the bound", () => {
    expect(encodeRequestBody("hello", "json")).toEqual({ ok: false, problem: "a JSON body must be an object of fields (or valid JSON text)" });
    let deep: Record<string, unknown> = {};
    for (let i = 0; i < 40; i += 1) deep = { deep };
    expect(encodeRequestBody(deep, "json")).toMatchObject({ ok: false, problem: expect.stringContaining("nests too deeply") });
  });

  it("URL-encodes flat form fields, numbers and true/false as their text", () => {
    expect(encodeRequestBody({ email: "a@b.example", note: "hi there & more", count: 3, ratio: 0.5, agree: true, empty: "" }, "form-data")).toEqual({
      ok: true,
      body: {
        type: "form-data",
        text: "email=a%40b.example&note=hi+there+%26+more&count=3&ratio=0.5&agree=true&empty=",
        contentType: "application/x-www-form-urlencoded",
      },
    });
    // Non-ASCII goes as UTF-8 percent escapes, and reads back as written.
    const encoded = encodeRequestBody({ city: "Zürich 東京" }, "form-data");
    expect(encoded).toMatchObject({ ok: true, body: { text: "city=Z%C3%BCrich+%E6%9D%B1%E4%BA%AC" } });
    if (encoded.ok) expect(new URLSearchParams(encoded.body.text).get("city")).toBe("Zürich 東京");
  });

  it("refuses what cannot be a form field, naming the field", () => {
    expect(encodeRequestBody({ tags: ["a", "b"] }, "form-data")).toEqual({
      ok: false,
      problem: 'form field "tags" is a list; a form field holds text, a number or true/false',
    });
    expect(encodeRequestBody({ address: { city: "Oslo" } }, "form-data")).toEqual({
      ok: false,
      problem: 'form field "address" is an object; a form field holds text, a number or true/false',
    });
    expect(encodeRequestBody({ gone: null }, "form-data")).toMatchObject({ ok: false, problem: expect.stringContaining('"gone" is null') });
    expect(encodeRequestBody({ n: Number.NaN }, "form-data")).toMatchObject({ ok: false, problem: expect.stringContaining("not a finite number") });
    expect(encodeRequestBody("email=a", "form-data")).toEqual({ ok: false, problem: "a form body must be an object of fields, not a string" });
    expect(encodeRequestBody({ "": "x" }, "form-data")).toMatchObject({ ok: false, problem: expect.stringContaining("field names") });
    const many = Object.fromEntries(Array.from({ length: 65 }, (_, i) => [`f${i}`, "x"]));
    expect(encodeRequestBody(many, "form-data")).toMatchObject({ ok: false, problem: expect.stringContaining("at most 64 fields") });
  });

  it("sends a string as UTF-8 text, and refuses an object or nothing as text", () => {
    expect(encodeRequestBody("Summarize this.\nThanks", "text")).toEqual({
      ok: true,
      body: { type: "text", text: "Summarize this.\nThanks", contentType: "text/plain; charset=utf-8" },
    });
    expect(encodeRequestBody({ text: "x" }, "text")).toEqual({ ok: false, problem: "a text body must be a string, not an object of fields" });
    expect(encodeRequestBody("  ", "text")).toEqual({ ok: false, problem: "the text body is empty" });
  });

  it("bounds the size, before and after encoding, and refuses broken Unicode", () => {
    expect(encodeRequestBody("x".repeat(MAX_REQUEST_BODY_CHARS + 1), "text")).toMatchObject({ ok: false, problem: expect.stringContaining("longer than") });
    // Fits as a value, but percent escapes triple it.
    expect(encodeRequestBody({ v: "&".repeat(MAX_REQUEST_BODY_CHARS / 2) }, "form-data")).toMatchObject({
      ok: false,
      problem: expect.stringContaining("encoded body is longer"),
    });
    expect(encodeRequestBody("half \uD800 a pair", "text")).toEqual({ ok: false, problem: "the body holds text that is not valid Unicode" });
    expect(encodeRequestBody({ v: "\uDC00" }, "form-data")).toEqual({ ok: false, problem: "the body holds text that is not valid Unicode" });
    expect(encodeRequestBody(42, "json")).toEqual({ ok: false, problem: "the body must be an object of fields or a string" });
  });
});

describe("choosing and naming a body type", () => {
  it("takes the caller's type, else the declared one, else the value's shape", () => {
    expect(chooseBodyType({ a: 1 }, "form-data", "json")).toBe("form-data");
    expect(chooseBodyType({ a: 1 }, undefined, "form-data")).toBe("form-data");
    expect(chooseBodyType({ a: 1 })).toBe("json");
    expect(chooseBodyType("hello")).toBe("text");
  });

  it("maps content types back, JSON when none is named, nothing for a foreign one", () => {
    for (const [type, contentType] of Object.entries(BODY_CONTENT_TYPES)) expect(bodyTypeOf(contentType)).toBe(type);
    expect(bodyTypeOf(undefined)).toBe("json");
    expect(bodyTypeOf("multipart/form-data; boundary=x")).toBeUndefined();
    expect(RequestContentType.safeParse("application/json; charset=utf-8").success).toBe(false);
  });
});
