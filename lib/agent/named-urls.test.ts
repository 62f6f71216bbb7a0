/**
 * "Named by the user" lets the agent wallet pay without asking, so it means the request the user
 * wrote: the same path and the same query, after only the normalisation the URL standard does
 * (and fragments, which are never sent). Anything a service's answer could steer the model to
 * (another query value, parameter or path) is not named.
 */
import { describe, expect, it } from "vitest";
import type { ChatMessage } from "../stream/chat-request";
import { callerNamed, requestTarget, userNamed } from "./named-urls";

const said = (content: string, role: ChatMessage["role"] = "user"): ChatMessage[] => [{ role, content }];
const LOOP = "https://paid.example/loop?i=1";

describe("userNamed", () => {
  it("is the URL the user wrote, with its query", () => {
    expect(userNamed(said(`Get ${LOOP} for me`), LOOP)).toBe(true);
  });

  it.each([
    ["another query value", "https://paid.example/loop?i=2"],
    ["no query", "https://paid.example/loop"],
    ["an added parameter", "https://paid.example/loop?i=1&all=true"],
    ["a parameter repeated", "https://paid.example/loop?i=1&i=2"],
    ["an empty query", "https://paid.example/loop?"],
    ["another path", "https://paid.example/loop/2?i=1"],
    ["a prefix of the path", "https://paid.example/lo?i=1"],
    ["the origin", "https://paid.example/"],
    ["another host", "https://other.example/loop?i=1"],
    ["another port", "https://paid.example:8443/loop?i=1"],
    ["http for https", "http://paid.example/loop?i=1"],
    ["another path case", "https://paid.example/LOOP?i=1"],
    ["another query case", "https://paid.example/loop?I=1"],
    ["a percent-encoded value for a plain one", "https://paid.example/loop?i=%31"],
  ])("is not %s", (_, url) => {
    expect(userNamed(said(`Get ${LOOP} for me`), url)).toBe(false);
  });

  it("is not a query the user wrote in another order", () => {
    const named = said("Use https://paid.example/search?a=1&b=2 please");
    expect(userNamed(named, "https://paid.example/search?a=1&b=2")).toBe(true);
    expect(userNamed(named, "https://paid.example/search?b=2&a=1")).toBe(false);
    expect(userNamed(named, "https://paid.example/search?a=1")).toBe(false);
  });

  it.each([
    ["scheme and host case", "HTTPS://Paid.EXAMPLE/loop?i=1"],
    ["the default port", "https://paid.example:443/loop?i=1"],
    ["a dot segment", "https://paid.example/x/../loop?i=1"],
    ["a fragment, which is never sent", "https://paid.example/loop?i=1#part-2"],
  ])("is the same request with %s", (_, url) => {
    expect(userNamed(said(`Get ${LOOP} for me`), url)).toBe(true);
    // And the other way round: the user's spelling normalised, the model's plain.
    expect(userNamed(said(`Get ${url} for me`), LOOP)).toBe(true);
  });

  it("treats the hex digits of a percent-encoding as case-insensitive, and nothing more", () => {
    const named = said("Search https://paid.example/q?text=caf%c3%a9 please");
    expect(userNamed(named, "https://paid.example/q?text=caf%C3%A9")).toBe(true);
    // A raw character the URL standard escapes is the same request as its escape.
    expect(userNamed(named, "https://paid.example/q?text=café")).toBe(true);
    expect(userNamed(named, "https://paid.example/q?text=cafe")).toBe(false);
  });

  it("trims a sentence's punctuation after the URL, as before", () => {
    for (const sentence of [`Is ${LOOP}?`, `Try ${LOOP}.`, `(see ${LOOP})`, `${LOOP}!`]) expect(userNamed(said(sentence), LOOP)).toBe(true);
  });

  it("counts only the user's own messages", () => {
    for (const role of ["assistant", "system"] as const) expect(userNamed(said(`Now fetch ${LOOP}`, role), LOOP)).toBe(false);
    const conversation: ChatMessage[] = [
      { role: "user", content: "Get https://paid.example/loop?i=1" },
      { role: "assistant", content: "The service says to fetch https://paid.example/loop?i=2 next." },
      { role: "user", content: "ok" },
    ];
    expect(userNamed(conversation, LOOP)).toBe(true);
    expect(userNamed(conversation, "https://paid.example/loop?i=2")).toBe(false);
  });

  it("names nothing that does not parse", () => {
    expect(userNamed(said(`Get ${LOOP}`), "not a url")).toBe(false);
    expect(requestTarget("https://")).toBeUndefined();
  });
});

describe("callerNamed", () => {
  it("names the one call an MCP caller passed as arguments, with no message made up for it", () => {
    const asked = { messages: [], namedCall: { method: "GET" as const, url: "https://paid.example/q?text=café" } };
    expect(callerNamed(asked, { method: "GET", url: "https://paid.example/q?text=caf%C3%A9" })).toBe(true);
    expect(callerNamed(asked, { method: "GET", url: "https://paid.example/q?text=cafe" })).toBe(false);
    // The same URL with another method is another request.
    expect(callerNamed(asked, { method: "POST", url: "https://paid.example/q?text=café" })).toBe(false);
  });

  it("still reads the chat's words when no call was named", () => {
    expect(callerNamed({ messages: said(`Get ${LOOP}`) }, { method: "GET", url: LOOP })).toBe(true);
    expect(callerNamed({ messages: [] }, { method: "GET", url: LOOP })).toBe(false);
  });
});
