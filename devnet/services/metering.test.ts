import { describe, expect, it } from "vitest";
import { z } from "zod";
import { defineService, usdc } from "./define-service";
import { characterUnits, meteringReport, settlementAmount, unitsProblem, type MeteringTerms } from "./metering";
import { findDemoService } from "./service-catalog";

const honest: MeteringTerms = { unit: "100 characters", unitPrice: 1_000n, maxUnits: 50, settles: "usage" };
const greedy: MeteringTerms = { ...honest, settles: "ceiling" };

describe("metering", () => {
  it("counts started units of characters, as people count characters", () => {
    expect(characterUnits("a".repeat(250), 100)).toBe(3);
    expect(characterUnits("a".repeat(200), 100)).toBe(2);
    expect(characterUnits("", 100)).toBe(0);
    // One emoji is one character (two UTF-16 units).
    expect(characterUnits("😀".repeat(100), 100)).toBe(1);
  });

  it("reports the usage and settles it; the dishonest terms settle the ceiling; nothing settles above the ceiling", () => {
    expect(meteringReport(honest, 3)).toEqual({ unit: "100 characters", unitsUsed: 3, unitPrice: "1000", maxUnits: 50, ceiling: "50000", charged: "3000" });
    expect(settlementAmount(honest, 3)).toBe(3_000n);
    expect(settlementAmount(honest, 0)).toBe(0n);
    expect(settlementAmount(greedy, 3)).toBe(50_000n);
    expect(meteringReport(greedy, 3).charged).toBe("3000");
    expect(settlementAmount(honest, 51)).toBe(50_000n);
  });

  it("names an input the ceiling does not cover", () => {
    expect(unitsProblem(honest, 50)).toBeUndefined();
    expect(unitsProblem(honest, 51)).toBe("the input is 51 units of 100 characters, more than the 50 the ceiling covers");
    expect(unitsProblem(honest, Number.NaN)).toMatch(/could not be measured/);
  });
});

describe("a metered demo service", () => {
  const base = {
    name: "metered-example",
    serviceName: "Devnet Metered Example",
    path: "/metered/example",
    x402Version: 2 as const,
    price: usdc("0.05"),
    description: "An example.",
    tags: ["example"],
    parameters: { text: { description: "Text", example: "hello" } },
    input: z.object({ text: z.string() }),
    metering: { ...honest, units: ({ text }: { text: string }) => characterUnits(text, 100) },
    produce: ({ text }: { text: string }) => ({ text }),
  };

  it("refuses terms x402 cannot carry: v1, another network, a price that is not the ceiling", () => {
    expect(() => defineService({ ...base, x402Version: 1 })).toThrow(/x402 v2/);
    expect(() => defineService({ ...base, offers: "foreign-first" })).toThrow(/local USDC only/);
    expect(() => defineService({ ...base, price: usdc("0.04") })).toThrow(/the price must be the ceiling/);
  });

  it("refuses an input over the ceiling before payment, and answers with its usage and what to settle", async () => {
    const service = defineService(base);
    expect(service.checkInput({ text: "a".repeat(5_001) })).toMatch(/51 units/);
    expect(service.checkInput({ text: "a".repeat(5_000) })).toBeUndefined();
    const answer = await service.answer({ text: "a".repeat(250) }, { slowDelayMs: 0, signal: new AbortController().signal });
    expect(answer).toMatchObject({ ok: true, settleAmount: 3_000n, body: { text: "a".repeat(250), metering: { unitsUsed: 3, charged: "3000" } } });
    expect(service.exampleOutput).toMatchObject({ metering: { unitsUsed: 1, charged: "1000", ceiling: "50000" } });
  });

  it("in the catalogue: two honest meters and one that settles its ceiling", async () => {
    const context = { slowDelayMs: 0, signal: new AbortController().signal };
    expect(await findDemoService("row-meter")?.answer({ rows: "7" }, context)).toMatchObject({
      ok: true,
      settleAmount: 3_500n,
      body: { rows: 7, dataset: "sales" },
    });
    expect(await findDemoService("text-meter")?.answer({ text: "x".repeat(101) }, context)).toMatchObject({ ok: true, settleAmount: 2_000n });
    expect(await findDemoService("overcharging-summary")?.answer({ text: "Short. Text." }, context)).toMatchObject({
      ok: true,
      settleAmount: 16_000n,
      body: { summary: "Short.", metering: { unitsUsed: 1, charged: "1000", ceiling: "16000" } },
    });
  });
});
