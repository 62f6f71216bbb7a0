import { describe, expect, it } from "vitest";
import type { ServiceListing } from "./discovery-listing";
import { addDropped, countDropped, createListingJudge, droppedNote, sortCallable } from "./uncallable-listings";

const judge = createListingJudge({
  allowlist: ["127.0.0.1:4021", "127.0.0.1:3000"],
  infrastructure: ["http://127.0.0.1:8545", "https://facilitator.example"],
  ownOrigins: ["http://127.0.0.1:3000"],
});

const listing = (resource: string): ServiceListing => ({ name: "Weather", resource, price: "0.01", amount: 10_000n, tags: [] });

describe("createListingJudge", () => {
  it.each([
    ["http://10.0.0.1/weather", "refused-address"],
    ["http://169.254.169.254/latest/meta-data", "refused-address"],
    ["http://127.0.0.1:4999/weather", "refused-address"],
    ["https://user:pw@weather.example/", "refused-address"],
    ["http://127.0.0.1:8545", "network-server"],
    ["http://localhost:8545/", "network-server"],
    ["https://facilitator.example/discovery/resources", "network-server"],
    // This app, on any path and spelling, although the allowlist would let the fetch reach it.
    ["http://127.0.0.1:3000/api/mcp", "this-app"],
    ["http://localhost:3000/api/chat", "this-app"],
    ["http://[::1]:3000/api/mcp", "this-app"],
    ["http://127.0.0.1:4021/weather", undefined],
    ["https://weather.example/forecast", undefined],
  ])("%s: %s", async (url, reason) => {
    expect(await judge(url)).toBe(reason);
  });

  it("knows this app by its configured name", async () => {
    const named = createListingJudge({ allowlist: [], infrastructure: [], ownOrigins: ["https://agent.example"] });
    expect(await named("https://agent.example/api/mcp")).toBe("this-app");
    expect(await named("https://AGENT.example./api/chat")).toBe("this-app");
    expect(await named("https://agent.example:8443/api/mcp")).toBeUndefined();
    expect(await named("https://other.example/api/mcp")).toBeUndefined();
  });
});

describe("sortCallable and the counts", () => {
  it("keeps the callable in their order and counts the rest per reason", async () => {
    const listings = [
      "http://10.0.0.1/a",
      "http://127.0.0.1:4021/b",
      "http://127.0.0.1:8545",
      "http://127.0.0.1:3000/api/mcp",
      "http://10.0.0.2/c",
      "https://weather.example/d",
    ].map(listing);
    const sorted = await sortCallable(listings, judge);
    expect(sorted.kept.map((kept) => kept.resource)).toEqual(["http://127.0.0.1:4021/b", "https://weather.example/d"]);
    const counts = countDropped(sorted.dropped);
    expect(counts).toEqual({ "refused-address": 2, "network-server": 1, "this-app": 1 });
    expect(addDropped(counts, { "this-app": 1 })).toEqual({ "refused-address": 2, "network-server": 1, "this-app": 2 });
    expect(droppedNote(counts)).toBe(
      "Left out listings the agent cannot call: 2 at an address this server does not call, 1 at the payment network's own servers, 1 at this app's own endpoints.",
    );
    expect(droppedNote({})).toBe("");
  });

  it("keeps everything without a judge", async () => {
    expect((await sortCallable([listing("http://10.0.0.1/a")], undefined)).kept).toHaveLength(1);
  });
});
