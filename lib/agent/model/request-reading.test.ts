import { describe, expect, it } from "vitest";
import { readRequest } from "./request-reading";

describe("readRequest", () => {
  it("sets quoted text, or text after a colon, apart as the payload", () => {
    expect(readRequest('Pull out the keywords of "The museum reopened."')).toMatchObject({
      request: "Pull out the keywords of",
      payload: "The museum reopened.",
    });
    expect(readRequest("Translate 'Good night' into French")).toMatchObject({ request: "Translate into French", payload: "Good night" });
    expect(readRequest("Extract the keywords from this: Solar panels get cheaper.")).toMatchObject({
      request: "Extract the keywords from this",
      payload: "Solar panels get cheaper.",
    });
    // An apostrophe is no quote, a one-word tail after a colon no payload, a URL's colon no colon.
    expect(readRequest("What's the weather in Lisbon?").payload).toBeUndefined();
    expect(readRequest("Weather: Lisbon").payload).toBeUndefined();
    expect(readRequest("Get https://example.test/data please").payload).toBeUndefined();
    expect(readRequest("Getting around Lima: transit tips", { whole: true }).payload).toBeUndefined();
  });

  it("finds places after a preposition, in any case, and not other capitalised words", () => {
    expect(readRequest("What's the weather in Lisbon?").places).toEqual(["Lisbon"]);
    expect(readRequest("Is it raining in São Paulo").places).toEqual(["São Paulo"]);
    expect(readRequest("weather in new york today").places).toEqual(["New York"]);
    expect(readRequest("Use the Devnet Keyword Extractor").places).toEqual([]);
    expect(readRequest("What is the dollar worth in other currencies?").places).toEqual([]);
    expect(readRequest("Translate good morning to French").places).toEqual([]);
    expect(readRequest("Porto weather please").leadingName).toBe("Porto");
    expect(readRequest("weather forecast Hamburg").names).toEqual(["Hamburg"]);
  });

  it("reads tickers, coins named in words, currencies, ids, e-mail addresses and languages", () => {
    expect(readRequest("What's the stock quote for ACME?").codes).toEqual(["ACME"]);
    expect(readRequest("How much is bitcoin right now?").codes).toEqual(["BTC"]);
    expect(readRequest("Show me EUR exchange rates").currencies).toEqual(["EUR"]);
    expect(readRequest("What is the dollar worth in euros?").currencies).toEqual(["USD", "EUR"]);
    expect(readRequest("Get archive document doc-7").ids).toEqual(["doc-7"]);
    expect(readRequest("Pull up document 3").numberedWords).toContainEqual({ word: "document", value: 3 });
    expect(readRequest("Subscribe ada+news@example.com to the digest").emails).toEqual(["ada+news@example.com"]);
    expect(readRequest("Translate good morning into Portuguese").languages).toEqual([{ name: "Portuguese", code: "pt" }]);
  });

  it("reads numbers with their units, in digits or words", () => {
    expect(readRequest("museums in Lisbon for a 2 day trip").numbers).toEqual([{ value: 2, unit: "day" }]);
    expect(readRequest("a 3-day stay").numbers).toEqual([{ value: 3, unit: "day" }]);
    expect(readRequest("museum guide for seoul, one week").numbers).toEqual([{ value: 1, unit: "week" }]);
    expect(readRequest("Give me 3 keywords").numbers).toEqual([{ value: 3, unit: "keyword" }]);
    expect(readRequest("the top 5 please").numbers).toContainEqual({ value: 5, unit: "top" });
    // "a" is an article, not a number, unless a unit of time follows.
    expect(readRequest("Run a sentiment analysis").numbers).toEqual([]);
    expect(readRequest("parks for a week").numbers).toEqual([{ value: 1, unit: "week" }]);
  });

  it("finds the subject after about/on/of/for, without filler", () => {
    expect(readRequest("Get today's headlines about AI").topicPhrase).toBe("AI");
    expect(readRequest("Run a sentiment analysis of ethereum").topicPhrase).toBe("ethereum");
    expect(readRequest("Get me the premium research report on electric vehicles.").topicPhrase).toBe("electric vehicles");
    expect(readRequest("Any news on renewable energy today?").topicPhrase).toBe("renewable energy");
  });

  it("tells the words that say what is wanted from values, arguments and what values imply", () => {
    const reading = readRequest("What are the best museums in Lisbon for a 2 day trip?");
    expect(reading.topicWords).toEqual(["museum", "day", "trip"]);
    expect(reading.valueWords).toEqual(["lisbon"]);
    expect(reading.argumentWords).toEqual(["day", "trip"]);
    expect(readRequest("How much is bitcoin?").impliedWords).toEqual(["crypto", "coin"]);
    // An acronym is a topic word that does not count against a listing when it matches nothing.
    expect(readRequest("AQI in Nairobi")).toMatchObject({ topicWords: ["aqi"], argumentWords: ["aqi"], valueWords: ["nairobi"] });
  });
});
