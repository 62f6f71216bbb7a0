/** A listing as discovery shows it, to the model and in the page's `discovered` event. */
import { describe, expect, it } from "vitest";
import type { ServiceListing } from "../../x402/discovery-listing";
import { listedService } from "./listed-service";

describe("listedService", () => {
  it("shows a field's declared set in its usage, in place of the type", () => {
    const listing: ServiceListing = {
      name: "Row Source",
      resource: "https://d.example/rows",
      price: "0.1",
      amount: 100_000n,
      tags: [],
      input: { method: "GET", query: [{ name: "dataset", type: "string", required: true, choices: ["sales", "traffic"], example: "sales" }], path: [] },
    };
    expect(listedService(listing)).toMatchObject({ usage: "GET ?dataset=<one of: sales, traffic, required, e.g. sales>" });
  });
});
