import { describe, expect, it } from "vitest";
import { MAX_QUERY_CHARS, readDemoIntent } from "./demo-intent";

describe("readDemoIntent", () => {
  it.each([
    ["What's the weather in Lisbon?"],
    ["weather in new york today"],
    ["How much is bitcoin right now?"],
    ["Get today's headlines about AI"],
    ["buy the premium report"],
    ["please call the slow service"],
    ["What are the best museums in Lisbon for a 2 day trip?"],
  ])("searches for any request in the user's own words: %s", (text) => {
    expect(readDemoIntent(text)).toEqual({ kind: "request", query: text });
  });

  it("searches with the request, not the text it hands over", () => {
    expect(readDemoIntent("Extract the keywords from this: Solar panels are getting cheaper every year.")).toEqual({
      kind: "request",
      query: "Extract the keywords from this",
    });
    expect(readDemoIntent("Translate 'Thank you' into French")).toEqual({ kind: "request", query: "Translate into French" });
  });

  it("cuts a long request at a word, to the discovery tool's limit", () => {
    const intent = readDemoIntent(`weather ${"very ".repeat(80)}please`);
    expect(intent.kind).toBe("request");
    const query = (intent as { query: string }).query;
    expect(query.length).toBeLessThanOrEqual(MAX_QUERY_CHARS);
    expect(query.endsWith("very")).toBe(true);
  });

  it("tells looking from asking", () => {
    expect(readDemoIntent("find me a service for crypto prices")).toEqual({ kind: "list", query: "find me a service for crypto prices" });
    expect(readDemoIntent("Compare the prices of all services")).toEqual({ kind: "list", query: undefined });
    expect(readDemoIntent("list services")).toEqual({ kind: "list", query: undefined });
    expect(readDemoIntent("What services do you have?")).toEqual({ kind: "list", query: undefined });
    // Naming a service to use is asking, not looking.
    expect(readDemoIntent("Use the Devnet Air Quality service").kind).toBe("request");
  });

  it("helps with greetings and questions about itself, and hears a declined payment", () => {
    expect(readDemoIntent("hello there")).toEqual({ kind: "help" });
    expect(readDemoIntent("what can you do?")).toEqual({ kind: "help" });
    expect(readDemoIntent("Hello, what can you do?")).toEqual({ kind: "help" });
    expect(readDemoIntent("I declined the payment of 0.01 USDC to Devnet Weather.")).toEqual({ kind: "declined" });
  });
});
