import { describe, expect, it } from "vitest";
import { askedOf, labelOf, separateNotice, tableColumns, withUnit } from "./result-view";

describe("separateNotice", () => {
  it("lifts a demo label and its note out of the data", () => {
    expect(separateNotice({ demo: true, note: "Made up.", city: "Lisbon" })).toEqual({ data: { city: "Lisbon" }, notice: "Made up." });
    expect(separateNotice({ demo: true, city: "Lisbon" })).toEqual({ data: { city: "Lisbon" }, notice: "The service marks this answer as demo data." });
  });

  it("leaves data without the label alone, a note included", () => {
    const data = { note: "a field like any other", demo: "yes" };
    expect(separateNotice(data)).toEqual({ data, notice: undefined });
    expect(separateNotice([{ demo: true }])).toEqual({ data: [{ demo: true }], notice: undefined });
    expect(separateNotice("text")).toEqual({ data: "text", notice: undefined });
  });

  it("keeps a note that is not text as data, and bounds a long one", () => {
    expect(separateNotice({ demo: true, note: { a: 1 } })).toEqual({ data: { note: { a: 1 } }, notice: "The service marks this answer as demo data." });
    expect(separateNotice({ demo: true, note: "n".repeat(1_000) }).notice).toHaveLength(300);
  });
});

describe("askedOf", () => {
  it("names the query's fields and keeps the path", () => {
    expect(askedOf("http://127.0.0.1:4021/weather?city=S%C3%A3o%20Paulo")).toEqual({
      method: undefined,
      host: "127.0.0.1:4021",
      path: "/weather",
      fields: [{ name: "city", value: "São Paulo" }],
    });
    expect(askedOf("http://api.example/stocks/ACME%20B/quote")?.path).toBe("/stocks/ACME B/quote");
  });

  it("reads a JSON body's, a form's and a text body's fields", () => {
    expect(askedOf("http://x/nlp", { method: "POST", body: '{"text":"hello","limit":5,"tags":["a"]}' })?.fields).toEqual([
      { name: "text", value: "hello" },
      { name: "limit", value: "5" },
      { name: "tags", value: '["a"]' },
    ]);
    expect(askedOf("http://x/f", { method: "POST", body: "to=pt&text=good%20morning" })?.fields).toEqual([
      { name: "to", value: "pt" },
      { name: "text", value: "good morning" },
    ]);
    expect(askedOf("http://x/t", { method: "POST", body: "just some words" })?.fields).toEqual([{ name: "text", value: "just some words" }]);
  });

  it("says nothing for a missing or unreadable URL, and bounds long values", () => {
    expect(askedOf(undefined)).toBeUndefined();
    expect(askedOf("not a url")).toBeUndefined();
    expect(askedOf(`http://x/?q=${"a".repeat(500)}`)?.fields[0]?.value).toHaveLength(120);
  });
});

describe("labelOf and withUnit", () => {
  it.each([
    ["temperatureCelsius", "Temperature", "°C"],
    ["humidityPercent", "Humidity", "%"],
    ["windKph", "Wind", "km/h"],
    ["change24hPercent", "Change 24h", "%"],
    ["volume24hUsd", "Volume 24h", "USD"],
    ["marketSizeUsdBillions", "Market size", "billion USD"],
    ["analysis_ms", "Analysis", "ms"],
    ["minutesAgo", "Minutes ago", undefined],
    ["dominantPollutant", "Dominant pollutant", undefined],
    ["usd", "Usd", undefined],
    ["AQI", "AQI", undefined],
  ])("%s → %s (%s)", (key, label, unit) => {
    expect(labelOf(key)).toEqual({ label, unit });
  });

  it("puts the unit after numbers only", () => {
    expect(withUnit(21, "°C")).toBe("21 °C");
    expect(withUnit("64.5", "USD")).toBe("64.5 USD");
    expect(withUnit(62, "%")).toBe("62%");
    expect(withUnit("n/a", "%")).toBe("n/a");
    expect(withUnit(null, "%")).toBe("—");
  });
});

describe("tableColumns", () => {
  it("is the union of the records' keys in order of appearance", () => {
    expect(
      tableColumns([
        { title: "a", source: "b" },
        { title: "c", minutesAgo: 3 },
      ]),
    ).toEqual(["title", "source", "minutesAgo"]);
  });

  it("is undefined for anything that is not a list of records a table can hold", () => {
    expect(tableColumns([])).toBeUndefined();
    expect(tableColumns(["a", "b"])).toBeUndefined();
    expect(tableColumns([{ a: 1 }, "b"])).toBeUndefined();
    expect(tableColumns({ a: 1 })).toBeUndefined();
    expect(tableColumns([Object.fromEntries(Array.from({ length: 9 }, (_, index) => [`k${index}`, index]))])).toBeUndefined();
  });
});
