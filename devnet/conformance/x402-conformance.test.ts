import { z } from "zod";
import { describe, expect, it } from "vitest";
import { defineService, usdc } from "../services/define-service";
import { discoveryExtensionFor } from "../services/payment-terms";
import { ALL_SERVICES, findDemoService, type DemoService } from "../services/service-catalog";
import {
  assertCatalogueConforms,
  catalogueProblems,
  listingProblems,
  listPageProblems,
  paymentRequiredProblems,
  paymentResponseProblems,
  searchPageProblems,
  serviceMetadataProblems,
} from "./x402-conformance";

/** The name a city guide had when the official client's payments to it were refused. */
const OLD_GUIDE_NAME = "Devnet City Guide: Lisbon museums";
const TOO_LONG = "serviceName: String must contain at most 32 character(s)";

const PAY_TO = "0x9965507D1a55bcC2695C58ba16FB37d819B0A4dc";
const USDC = "0x5FbDB2315678afecb367f032d93F642f64180aa3";

/** A listing as the devnet's discovery answers it, built without starting the world. */
function listingOf(service: DemoService, overrides: Record<string, unknown> = {}) {
  const resource = `http://127.0.0.1:4021${service.path}`;
  return {
    resource,
    type: "http",
    x402Version: 2,
    accepts: [
      {
        scheme: "exact",
        network: "eip155:31337",
        amount: service.price.toString(),
        asset: USDC,
        payTo: PAY_TO,
        maxTimeoutSeconds: 120,
        extra: { name: "USD Coin", version: "2" },
      },
    ],
    lastUpdated: "2026-01-01T00:00:00.000Z",
    description: service.description,
    mimeType: "application/json",
    serviceName: service.serviceName,
    tags: service.tags,
    extensions: discoveryExtensionFor(service),
    ...overrides,
  };
}

const guide = () => findDemoService("guide-lisbon-museums")!;

describe("the catalogue's own words", () => {
  it("every entry's name, tags and description pass x402's ResourceInfoSchema and the bazaar's tag rules", () => {
    const failing = ALL_SERVICES.flatMap((service) => serviceMetadataProblems(service).map((problem) => `${service.name}: ${problem}`));
    expect(failing).toEqual([]);
    expect(Math.max(...ALL_SERVICES.map((service) => service.serviceName.length))).toBeLessThanOrEqual(32);
  });

  it("names a 33-character serviceName, the one the issue found", () => {
    expect(OLD_GUIDE_NAME).toHaveLength(33);
    expect(serviceMetadataProblems({ serviceName: OLD_GUIDE_NAME, tags: guide().tags })).toEqual([TOO_LONG]);
  });

  it("names every other rule a name or a tag can break", () => {
    expect(serviceMetadataProblems({ serviceName: "Café Guide" })).toEqual(["serviceName: Invalid: printable ASCII only (x402's ResourceInfoSchema)"]);
    expect(serviceMetadataProblems({ serviceName: "" })).toEqual([
      "serviceName: String must contain at least 1 character(s)",
      "serviceName: Invalid: printable ASCII only (x402's ResourceInfoSchema)",
    ]);
    expect(serviceMetadataProblems({ tags: ["a", "b", "c", "d", "e", "f"] })).toEqual(["tags: Array must contain at most 5 element(s)"]);
    expect(serviceMetadataProblems({ tags: ["x".repeat(33)] })).toEqual(["tags.0: String must contain at most 32 character(s)"]);
    expect(serviceMetadataProblems({ tags: ["travel", "Travel"] })).toEqual([
      'tags: the bazaar would drop ["Travel"] (a tag may appear once, whatever its case)',
    ]);
  });

  it("refuses to build a catalogue entry that breaks them, naming it", () => {
    const broken = () =>
      defineService({
        name: "guide-broken",
        serviceName: OLD_GUIDE_NAME,
        path: "/guides/broken",
        x402Version: 2,
        price: usdc("0.001"),
        description: "A guide whose name is one character too long.",
        tags: ["city guide"],
        parameters: {},
        input: z.object({}),
        produce: () => ({}),
      });
    expect(broken).toThrow(`guide-broken: ${TOO_LONG}`);
  });
});

describe("listings", () => {
  it("a listing as the devnet lists it passes every check, the JSON-Schema check of its bazaar info included", () => {
    for (const name of ["weather", "keywords", "stock-quote", "archive", "guide-istanbul-museums"]) {
      expect(listingProblems(listingOf(findDemoService(name)!)), name).toEqual([]);
    }
  });

  it("the metered rows service declares its datasets as the schema's `enum`, its description still naming them, and conforms", () => {
    const rows = findDemoService("row-meter")!;
    const extension = discoveryExtensionFor(rows) as {
      bazaar: { schema: { properties: { input: { properties: { queryParams: { properties: Record<string, unknown> } } } } } };
    };
    expect(extension.bazaar.schema.properties.input.properties.queryParams.properties.dataset).toEqual({
      type: "string",
      description: "Which dataset: sales (default) or stations",
      enum: ["sales", "stations"],
    });
    expect(listingProblems(listingOf(rows))).toEqual([]);
  });

  it("the start-up check names the listing that breaks a rule, and stops", () => {
    const good = { name: "weather", listing: listingOf(findDemoService("weather")!) };
    const broken = { name: "guide-lisbon-museums", listing: listingOf(guide(), { serviceName: OLD_GUIDE_NAME }) };
    expect(catalogueProblems([good, broken])).toEqual([`guide-lisbon-museums (http://127.0.0.1:4021/guides/lisbon/museums): ${TOO_LONG}`]);
    expect(() => assertCatalogueConforms([good, broken])).toThrow(
      /the catalogue breaks the x402 schemas[^]*- guide-lisbon-museums \(http:\/\/127\.0\.0\.1:4021\/guides\/lisbon\/museums\): serviceName: String must contain at most 32/,
    );
    expect(() => assertCatalogueConforms([good])).not.toThrow();
  });

  it("names fields the spec does not have, wrong terms for the version, a bad route template and an invalid bazaar info", () => {
    const service = findDemoService("stock-quote")!;
    expect(listingProblems(listingOf(service, { metadata: { name: "stock-quote" } }))).toEqual(["(root): Unrecognized key(s) in object: 'metadata'"]);
    expect(listingProblems(listingOf(service, { x402Version: 1 }))).toEqual(
      expect.arrayContaining(["accepts.0.maxAmountRequired: Required", "accepts.0.resource: Required", "accepts.0.description: Required"]),
    );
    const extensions = discoveryExtensionFor(service) as { bazaar: Record<string, unknown> & { info: { input: Record<string, unknown> } } };
    expect(listingProblems(listingOf(service, { extensions: { bazaar: { ...extensions.bazaar, routeTemplate: "/stocks/../:ticker" } } }))).toEqual([
      'extensions.bazaar: routeTemplate "/stocks/../:ticker" is not a valid route template',
    ]);
    const wrongMethod = { ...extensions.bazaar, info: { ...extensions.bazaar.info, input: { ...extensions.bazaar.info.input, method: "POST" } } };
    expect(listingProblems(listingOf(service, { extensions: { bazaar: wrongMethod } }))).toEqual([
      "extensions.bazaar: info /input/method: must be equal to one of the allowed values",
    ]);
  });

  it("checks a list page and a search page, and every listing on them", () => {
    const listing = listingOf(guide(), { serviceName: OLD_GUIDE_NAME });
    expect(listPageProblems({ x402Version: 2, items: [listing], pagination: { limit: 1, offset: 0, total: 1 } })).toEqual([
      `items.0 (${listing.resource}): ${TOO_LONG}`,
    ]);
    expect(listPageProblems({ x402Version: 2, items: [], pagination: { limit: 1, offset: 0 } })).toEqual(["pagination.total: Required"]);
    expect(searchPageProblems({ x402Version: 2, resources: [], partialResults: false, pagination: { limit: 5, cursor: null } })).toEqual([]);
    expect(searchPageProblems({ x402Version: 2, resources: [], pagination: { limit: 5, cursor: "" } })).toEqual([
      "pagination.cursor: String must contain at least 1 character(s)",
    ]);
  });
});

describe("payment messages", () => {
  const required = (resource: Record<string, unknown>, extensions?: Record<string, unknown>) => ({
    x402Version: 2,
    resource: { url: "http://127.0.0.1:4021/guides/lisbon/museums", ...resource },
    accepts: listingOf(guide()).accepts,
    ...(extensions ? { extensions } : {}),
  });

  it("a 402 whose resource carries a 33-character serviceName is what the facilitator refused", async () => {
    expect(await paymentRequiredProblems(required({ serviceName: OLD_GUIDE_NAME }))).toEqual([`resource.${TOO_LONG}`]);
    expect(await paymentRequiredProblems(required({ serviceName: "Devnet Guide: Lisbon museums" }, discoveryExtensionFor(guide())))).toEqual([]);
  });

  it("an extension with no known official check is a problem, not a pass", async () => {
    expect(await paymentRequiredProblems(required({}, { "made-up": { info: {} } }))).toEqual([
      "extensions.made-up: no official check is known for this extension",
    ]);
  });

  it("a settlement: the transaction of a success, the network as the version names it", async () => {
    const hash = `0x${"ab".repeat(32)}`;
    expect(await paymentResponseProblems({ success: true, transaction: hash, network: "eip155:31337", payer: PAY_TO }, { x402Version: 2 })).toEqual([]);
    expect(await paymentResponseProblems({ success: true, transaction: hash, network: "anvil" }, { x402Version: 1 })).toEqual([]);
    expect(await paymentResponseProblems({ success: true, transaction: "", network: "anvil" }, { x402Version: 2 })).toEqual([
      "network: Network must be in CAIP-2 format (e.g., 'eip155:84532')",
      'transaction: "" is not a transaction hash',
    ]);
    expect(await paymentResponseProblems({ success: false, network: "eip155:31337" }, { x402Version: 2 })).toEqual(["transaction: Required"]);
  });
});
