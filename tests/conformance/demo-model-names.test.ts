/**
 * The offline demo model routes by what discovery lists, never by knowing the local world: no
 * code of it names a local-world service (its display name, its catalogue name or its path).
 */
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { ALL_SERVICES } from "../../devnet/services/service-catalog";

// Kept outside lib/: app code (tests included) never imports the local world.
const here = path.join(path.dirname(new URL(import.meta.url).pathname), "../../lib/agent/model");
const sources = readdirSync(here).filter((file) => file.endsWith(".ts") && !file.endsWith(".test.ts"));

describe("the demo model's code", () => {
  it("is all read here", () => {
    expect(sources).toContain("demo-model.ts");
    expect(sources).toContain("listing-relevance.ts");
  });

  it.each(sources)("%s names no local-world service", (file) => {
    const code = readFileSync(path.join(here, file), "utf8").toLowerCase();
    const named = ALL_SERVICES.flatMap((service) =>
      [service.serviceName, service.path, ...(service.name.includes("-") ? [service.name] : [])].filter((name) => code.includes(name.toLowerCase())),
    );
    expect(named).toEqual([]);
  });
});
