/** The offer readers by name, and a scheme name read back from storage. */
import { describe, expect, it } from "vitest";
import { DEFAULT_SCHEME, offerReaderFor, OFFER_READERS, storedSchemeOf } from "./offer-readers";

describe("offer readers", () => {
  it("finds a reader only under a name it was registered by", () => {
    for (const reader of OFFER_READERS) expect(offerReaderFor(reader.name)).toBe(reader);
    expect(offerReaderFor("deferred")).toBeUndefined();
    expect(offerReaderFor(undefined)).toBeUndefined();
  });

  it("reads back a stored scheme: the default and unknown names as none", () => {
    const others = OFFER_READERS.map((reader) => reader.name).filter((name) => name !== DEFAULT_SCHEME);
    expect(others.length).toBeGreaterThan(0);
    for (const name of others) expect(storedSchemeOf(name)).toBe(name);
    expect(storedSchemeOf(DEFAULT_SCHEME)).toBeUndefined();
    expect(storedSchemeOf(null)).toBeUndefined();
    expect(storedSchemeOf("exact; drop table")).toBeUndefined();
  });
});
