import { describe, expect, it } from "vitest";
import { devAccounts } from "../chain/dev-accounts";
import { serviceMetadataProblems } from "../conformance/x402-conformance";
import { CHANNEL_BEHAVIOURS, CHANNEL_SERVICES } from "./channel-catalog";
import { channelPayee } from "./channel-server";

const example = (service: (typeof CHANNEL_SERVICES)[number]) =>
  Object.fromEntries(Object.entries(service.parameters).map(([key, parameter]) => [key, parameter.example]));

describe("the channel services' catalogue", () => {
  it("names, describes and tags each as x402's schemas allow", () => {
    for (const service of CHANNEL_SERVICES) {
      expect(
        serviceMetadataProblems({ serviceName: service.serviceName, tags: service.tags, description: service.description, mimeType: "application/json" }),
        service.name,
      ).toEqual([]);
    }
  });

  it("prices every call under a cent, each service differently, and suggests a deposit of many calls", () => {
    for (const service of CHANNEL_SERVICES) {
      expect(service.price, service.name).toBeGreaterThan(0n);
      expect(service.price, service.name).toBeLessThan(10_000n);
      expect(service.minDeposit / service.price, service.name).toBeGreaterThanOrEqual(20n);
    }
    expect(new Set(CHANNEL_SERVICES.map((service) => service.price)).size).toBe(CHANNEL_SERVICES.length);
  });

  it("has honest services and one hostile service of each kind", () => {
    expect(CHANNEL_BEHAVIOURS.map((behaviour) => CHANNEL_SERVICES.filter((service) => service.behaviour === behaviour).length)).toEqual([2, 1, 1]);
  });

  it("answers its own example with synthetic data marked as such, and refuses a bad input", () => {
    for (const service of CHANNEL_SERVICES) {
      expect(service.produce(service.input.parse(example(service))), service.name).toMatchObject({ demo: true });
      expect(service.input.safeParse(Object.fromEntries(Object.keys(service.parameters).map((key) => [key, "<script>"]))).success, service.name).toBe(false);
    }
  });

  it("pays each service to its own stable payee, never the merchant itself", () => {
    const { merchant } = devAccounts();
    const payees = CHANNEL_SERVICES.map((service) => channelPayee(merchant.privateKey, service.name));
    expect(new Set(payees).size).toBe(CHANNEL_SERVICES.length);
    expect(payees).not.toContain(merchant.address);
    expect(CHANNEL_SERVICES.map((service) => channelPayee(merchant.privateKey, service.name))).toEqual(payees);
  });
});
