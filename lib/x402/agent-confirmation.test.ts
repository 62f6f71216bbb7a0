import { describe, expect, it } from "vitest";
import { createConfirmationToken, readConfirmationToken, type ConfirmedTerms } from "./agent-confirmation";

const SECRET = "a-quote-secret-of-at-least-thirty-two-characters";
const terms: ConfirmedTerms = {
  v: 1,
  requestKey: "key:ip:direct:turn-1",
  method: "GET",
  url: "https://api.example.com/report?id=7",
  maxAmount: "1000000",
  expiresAt: 2_000_000_000,
};
const expected = { requestKey: terms.requestKey, nowSeconds: 1_900_000_000 };

describe("agent confirmation tokens", () => {
  it("give back exactly the terms they were issued with", () => {
    expect(readConfirmationToken(createConfirmationToken(terms, SECRET), SECRET, expected)).toEqual({ ok: true, terms });
  });

  it("refuse a changed term, another secret, another request, an expired one and garbage", () => {
    const token = createConfirmationToken(terms, SECRET);
    const [, signature] = token.split(".");
    const cheaper = Buffer.from(JSON.stringify({ ...terms, maxAmount: "100000000" })).toString("base64url");
    expect(readConfirmationToken(`${cheaper}.${signature}`, SECRET, expected)).toEqual({ ok: false, problem: "invalid" });
    expect(readConfirmationToken(token, `${SECRET}!`, expected)).toEqual({ ok: false, problem: "invalid" });
    expect(readConfirmationToken(token, SECRET, { ...expected, requestKey: "key:ip:direct:turn-2" })).toEqual({ ok: false, problem: "other-request" });
    expect(readConfirmationToken(token, SECRET, { ...expected, nowSeconds: terms.expiresAt })).toEqual({ ok: false, problem: "expired" });
    for (const junk of ["", ".", "a.b.c", `${"x".repeat(40_000)}.y`, "eyJ9.sig"]) expect(readConfirmationToken(junk, SECRET, expected).ok).toBe(false);
  });
});
