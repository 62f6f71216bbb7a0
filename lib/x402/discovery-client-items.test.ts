/**
 * Listed items the x402 spec allows that the discovery client once mishandled: a resource named
 * by an identifier rather than a URL, and an item whose declared version disagrees with the
 * shape of its terms (as in the spec's own list example).
 */
import { describe, expect, it } from "vitest";
import { offlineNetwork } from "../../tests/support/offline-fixtures";
import { createDiscoveryClient } from "./discovery-client";

const terms = {
  scheme: "exact",
  network: offlineNetwork.caip2,
  asset: offlineNetwork.usdc,
  payTo: "0x9965507D1a55bcC2695C58ba16FB37d819B0A4dc",
  maxTimeoutSeconds: 60,
  extra: { name: "USD Coin", version: "2" },
};

function listing(items: unknown[]) {
  const fetch = async () => Response.json({ x402Version: 2, items, pagination: { limit: 100, offset: 0, total: items.length } });
  return createDiscoveryClient({ now: Date.now, facilitatorUrl: "https://facilitator.example", network: offlineNetwork, fetch })
    .find()
    .then((found) => found.listings);
}

describe("discovery client, listed items", () => {
  it("leaves out resources that are not http(s) URLs and keeps the rest of the page", async () => {
    const item = (resource: string) => ({ resource, type: "http", x402Version: 2, accepts: [{ ...terms, amount: "1000" }] });
    const found = await listing([item("weather-api"), item("ftp://files.example/data"), item("https://svc.example/weather")]);
    expect(found.map((service) => service.resource)).toEqual(["https://svc.example/weather"]);
  });

  it("prices an item by the shape of its terms when its declared version reads none of them", async () => {
    const found = await listing([
      { resource: "https://svc.example/v2-terms", type: "http", x402Version: 1, accepts: [{ ...terms, amount: "1500" }] },
      { resource: "https://svc.example/v1-terms", type: "http", x402Version: 2, accepts: [{ ...terms, maxAmountRequired: "2500" }] },
    ]);
    expect(found.map((service) => [service.resource, service.amount, service.x402Version])).toEqual([
      ["https://svc.example/v2-terms", 1_500n, 1],
      ["https://svc.example/v1-terms", 2_500n, 2],
    ]);
  });

  it("still lists nothing it cannot pay under either reading", async () => {
    expect(
      await listing([{ resource: "https://svc.example/x", type: "http", x402Version: 1, accepts: [{ ...terms, network: "eip155:8453", amount: "1" }] }]),
    ).toEqual([]);
  });
});
