import { describe, expect, it, vi } from "vitest";
import { DevnetFaults } from "./faults";

describe("DevnetFaults", () => {
  it("changes only the switches given, and resets all of them", async () => {
    const faults = new DevnetFaults();
    faults.attachServices(["weather"], async () => {});
    await faults.set({ verifyFails: true, failingServices: ["weather"] });
    expect(faults.get()).toMatchObject({ verifyFails: true, settleFails: false, failingServices: ["weather"] });
    expect(faults.isServiceFailing("weather")).toBe(true);
    await faults.reset();
    expect(faults.verifyFails).toBe(false);
    expect(faults.isServiceFailing("weather")).toBe(false);
  });

  it("switches services offline and back, once per change", async () => {
    const switchService = vi.fn(async () => {});
    const faults = new DevnetFaults();
    faults.attachServices(["weather", "news"], switchService);
    await faults.set({ offlineServices: ["weather"] });
    await faults.set({ offlineServices: ["weather"] });
    await faults.reset();
    expect(switchService.mock.calls).toEqual([
      ["weather", false],
      ["weather", true],
    ]);
  });

  it("refuses unknown services and unknown switches", async () => {
    const faults = new DevnetFaults();
    faults.attachServices(["weather"], async () => {});
    await expect(faults.set({ offlineServices: ["nope"] })).rejects.toThrow(/no service/);
    await expect(faults.set({ verifyFail: true } as never)).rejects.toThrow();
  });

  it("holds callers while hanging, and lets them go on release or stop", async () => {
    const faults = new DevnetFaults();
    await expect(faults.waitWhileFacilitatorHangs()).resolves.toBe("released");
    await faults.set({ facilitatorHangs: true });
    const first = faults.waitWhileFacilitatorHangs();
    await faults.set({ facilitatorHangs: false });
    await expect(first).resolves.toBe("released");
    await faults.set({ facilitatorHangs: true });
    const second = faults.waitWhileFacilitatorHangs();
    faults.stop();
    await expect(second).resolves.toBe("stopped");
  });
});

describe("DevnetFaults: receipts", () => {
  it("names the services whose receipts are signed by the wrong key, and refuses unknown ones", async () => {
    const faults = new DevnetFaults();
    faults.attachServices(["weather", "news"], async () => {});
    await faults.set({ wrongReceiptSigner: ["weather"] });
    expect(faults.signsReceiptsWithWrongKey("weather")).toBe(true);
    expect(faults.signsReceiptsWithWrongKey("news")).toBe(false);
    await expect(faults.set({ wrongReceiptSigner: ["nope"] })).rejects.toThrow(/no service/);
    await faults.reset();
    expect(faults.signsReceiptsWithWrongKey("weather")).toBe(false);
  });
});
