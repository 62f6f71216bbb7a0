/**
 * The shape of lib/ is a lint fact (docs/architecture.md): these cases run the project's own
 * ESLint configuration, as `npm run lint` does, on fixture modules inside lib/ and show that a
 * cycle (through a value import, a type-only import or the `@/` alias), an import up the layers,
 * an import between two doors and a 251-line module each fail, while a module that keeps the
 * shape passes.
 */
import { mkdirSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { ESLint } from "eslint";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const root = fileURLToPath(new URL("../..", import.meta.url));
/** A folder of fixtures inside lib/ (no layer names it, so only the cycle and size rules apply). */
const fixtureFolder = `lint-shape-fixture-${process.pid}`;
const fixtures = path.join(root, "lib", fixtureFolder);

let eslint: ESLint;

beforeAll(() => {
  eslint = new ESLint({ cwd: root });
  mkdirSync(fixtures, { recursive: true });
  const write = (name: string, text: string) => writeFileSync(path.join(fixtures, name), text);
  // A value cycle: value-a ↔ value-b.
  write("value-a.ts", 'import { b } from "./value-b";\nexport const a = () => b;\n');
  write("value-b.ts", 'import { a } from "./value-a";\nexport const b = () => a;\n');
  // A cycle where one side imports only a type (what every cycle lib/ had looked like).
  write("type-a.ts", 'import { describe } from "./type-b";\nexport type Shape = { name: string };\nexport const shape: Shape = { name: describe() };\n');
  write("type-b.ts", 'import type { Shape } from "./type-a";\nexport const describe = (shape?: Shape) => shape?.name ?? "none";\n');
  // A cycle through the `@/` alias.
  write("alias-a.ts", `import { b } from "@/lib/${fixtureFolder}/alias-b";\nexport const a = () => b;\n`);
  write("alias-b.ts", 'import { a } from "./alias-a";\nexport const b = () => a;\n');
}, 60_000);

afterAll(() => {
  rmSync(fixtures, { recursive: true, force: true });
});

/** The rules that fail on `text` as if it were the module at `file` (relative to the repository). */
async function failingRules(text: string, file: string): Promise<string[]> {
  const [result] = await eslint.lintText(text, { filePath: path.join(root, file) });
  if (!result) throw new Error("ESLint returned no result");
  return result.messages.filter((message) => message.severity === 2).map((message) => message.ruleId ?? message.message);
}

const fixture = (name: string) => `lib/${fixtureFolder}/${name}`;

describe("lint keeps the shape of lib/", () => {
  it("fails on an import cycle", async () => {
    const text = 'import { b } from "./value-b";\nexport const a = () => b;\n';
    expect(await failingRules(text, fixture("value-a.ts"))).toEqual(["shape/no-import-cycle"]);
  }, 120_000);

  it("fails on a cycle that goes through a type-only import, from either side", async () => {
    const typeSide = 'import type { Shape } from "./type-a";\nexport const describe = (shape?: Shape) => shape?.name ?? "none";\n';
    expect(await failingRules(typeSide, fixture("type-b.ts"))).toEqual(["shape/no-import-cycle"]);
    const valueSide = 'import { describe } from "./type-b";\nexport type Shape = { name: string };\nexport const shape: Shape = { name: describe() };\n';
    expect(await failingRules(valueSide, fixture("type-a.ts"))).toEqual(["shape/no-import-cycle"]);
  }, 120_000);

  it("fails on a cycle through an @/lib/... import", async () => {
    const text = `import { b } from "@/lib/${fixtureFolder}/alias-b";\nexport const a = () => b;\n`;
    expect(await failingRules(text, fixture("alias-a.ts"))).toEqual(["shape/no-import-cycle"]);
  }, 120_000);

  it("fails on an import up the layers, relative or through @/, type-only or not", async () => {
    // lib/stream (layer 3) may not import lib/x402 (layer 4).
    const relative = 'import type { PayableRequirement } from "../x402/payment-requirements";\nexport type Offer = PayableRequirement;\n';
    expect(await failingRules(relative, "lib/stream/lint-shape-fixture.ts")).toEqual(["import/no-restricted-paths"]);
    const aliased = 'import { selectPayableRequirement } from "@/lib/x402/payment-requirements";\nexport const select = selectPayableRequirement;\n';
    expect(await failingRules(aliased, "lib/stream/lint-shape-fixture.ts")).toEqual(["import/no-restricted-paths"]);
    // lib/env.ts (layer 3) may not import lib/network (layer 4).
    const fromEnv = 'import { getNetworkConfig } from "./network/network-config";\nexport const load = getNetworkConfig;\n';
    expect(await failingRules(fromEnv, "lib/env.ts")).toContain("import/no-restricted-paths");
  }, 120_000);

  it("fails on an import between two doors, and passes one of what they share (lib/doors)", async () => {
    // The MCP server once borrowed the chat's admission; what both take now lives in lib/doors.
    const fromChat = 'import { handleChatRequest } from "../chat/handle-chat-request";\nexport const chat = handleChatRequest;\n';
    expect(await failingRules(fromChat, "lib/mcp/lint-shape-fixture.ts")).toEqual(["import/no-restricted-paths"]);
    const fromMcp = 'import { handleMcpRequest } from "@/lib/mcp/handle-mcp-request";\nexport const mcp = handleMcpRequest;\n';
    expect(await failingRules(fromMcp, "lib/chat/lint-shape-fixture.ts")).toEqual(["import/no-restricted-paths"]);
    // A door may not reach up for the composition root either: it is handed what it needs.
    const fromApp = 'import { getAppDependencies } from "../app/create-app-dependencies";\nexport const deps = getAppDependencies;\n';
    expect(await failingRules(fromApp, "lib/mcp/lint-shape-fixture.ts")).toEqual(["import/no-restricted-paths"]);
    const shared = 'import { admitCaller } from "../doors/admit-caller";\nexport const admit = admitCaller;\n';
    expect(await failingRules(shared, "lib/mcp/lint-shape-fixture.ts")).toEqual([]);
  }, 120_000);

  it("fails on a module of 251 lines and passes one of 250", async () => {
    const lines = (count: number) => `export const first = 1;\n${"// a line\n".repeat(count - 1)}`;
    expect(await failingRules(lines(251), fixture("long.ts"))).toEqual(["max-lines"]);
    expect(await failingRules(lines(250), fixture("long.ts"))).toEqual([]);
  }, 120_000);

  it("passes a module that imports only its own layer and the layers below", async () => {
    const text =
      'import { formatUsdc } from "../money";\nimport { withinJsonLimits } from "@/lib/json-limits";\nexport const show = (amount: bigint) => (withinJsonLimits(amount.toString()) ? formatUsdc(amount) : "");\n';
    expect(await failingRules(text, "lib/stream/lint-shape-fixture.ts")).toEqual([]);
  }, 120_000);
});

type Zone = { target: string | string[]; from: string | string[]; message?: string };

describe("the layers of lib/", () => {
  it("name every folder and module at the top of lib/ exactly once", async () => {
    const config = await eslint.calculateConfigForFile(path.join(root, "lib/money.ts"));
    const [, { zones }] = config.rules["import/no-restricted-paths"] as [unknown, { zones: Zone[] }];
    const layerZones = zones.filter((zone) => zone.message?.startsWith("lib/ is layered"));
    // Zone n has layer n as its targets and the layers above it as its sources: the last zone's
    // sources are the top layer.
    const layers = [...layerZones.map((zone) => [zone.target].flat()), [layerZones.at(-1)?.from ?? []].flat()];
    const named = layers.flat();
    expect(layers.length).toBeGreaterThan(5);
    expect(new Set(named).size).toBe(named.length);
    const entries = readdirSync(path.join(root, "lib"), { withFileTypes: true })
      .filter((entry) =>
        entry.isDirectory() ? !entry.name.startsWith("lint-shape-fixture-") : /\.tsx?$/.test(entry.name) && !/\.test\.tsx?$/.test(entry.name),
      )
      .map((entry) => `lib/${entry.name}`);
    expect([...entries].sort()).toEqual([...named].sort());
  });
});
