import { describe, expect, it } from "vitest";
import { readNamedCall } from "./named-call";

const WEATHER = "http://127.0.0.1:4021/forecast?place=Lisbon";

describe("readNamedCall", () => {
  it.each([
    [`Call ${WEATHER}`],
    [`Get ${WEATHER} for me`],
    [`Please fetch ${WEATHER}.`],
    [WEATHER],
    [`What's the weather in Paris? Call ${WEATHER}`],
    [`Call ${WEATHER}, thanks!`],
  ])("takes the URL as written, whatever words surround it: %s", (message) => {
    expect(readNamedCall(message)?.url).toBe(WEATHER);
  });

  it("names no call without a URL, nor for a URL inside text handed over to be worked on", () => {
    expect(readNamedCall("What's the weather in Lisbon?")).toBeUndefined();
    expect(readNamedCall(`Summarize this: The council met on Tuesday, minutes at ${WEATHER} for all.`)).toBeUndefined();
    expect(readNamedCall(`Translate "see ${WEATHER} for details" into French`)).toBeUndefined();
  });

  it("reads a method named right before the URL in any case, elsewhere only in capitals", () => {
    expect(readNamedCall(`Get ${WEATHER} for me`)?.method).toBe("GET");
    expect(readNamedCall(`post ${WEATHER}`)?.method).toBe("POST");
    expect(readNamedCall(`Send a PUT to ${WEATHER}`)?.method).toBe("PUT");
    expect(readNamedCall(`Call ${WEATHER}`)?.method).toBeUndefined();
    expect(readNamedCall(`Please fetch ${WEATHER} and put it here`)?.method).toBeUndefined();
  });

  it("keeps a query with several parameters and a path value as written", () => {
    const rows = "http://127.0.0.1:4021/meter/rows?rows=12&dataset=sales";
    expect(readNamedCall(`Call ${rows}`)).toEqual({ url: rows });
    const quote = "http://127.0.0.1:4021/equities/ACME?fresh=1";
    expect(readNamedCall(`Quote: ${quote}`)).toEqual({ url: quote });
  });

  it("reads the JSON body written after the URL", () => {
    const url = "http://127.0.0.1:4021/text/keywords";
    expect(readNamedCall(`POST ${url} with the JSON body {"text": "Solar power, again", "limit": 3}`)).toEqual({
      url,
      method: "POST",
      body: { text: "Solar power, again", limit: 3 },
    });
  });

  it("reads a fenced json block as the body", () => {
    const url = "http://127.0.0.1:4021/text/keywords";
    const message = `Call ${url} with this:\n\`\`\`json\n{"text": "Wind farms move offshore."}\n\`\`\``;
    expect(readNamedCall(message)).toEqual({ url, body: { text: "Wind farms move offshore." } });
  });

  it("leaves out a body that is no JSON object", () => {
    const url = "http://127.0.0.1:4021/text/keywords";
    expect(readNamedCall(`POST ${url} with {not json}`)).toEqual({ url, method: "POST" });
    expect(readNamedCall(`POST ${url} with the body [1, 2]`)).toEqual({ url, method: "POST" });
  });
});
