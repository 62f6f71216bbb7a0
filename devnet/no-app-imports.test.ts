import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import { describe, expect, it } from "vitest";

/** The app's own code: none of it may import the local world, so the production build cannot contain it. */
const APP_FOLDERS = ["app", "lib", "components"];
const ROOT = join(import.meta.dirname, "..");
/** `../devnet`, `../../devnet/start-devnet`, `@/devnet/...`; not `./devnet-coordinates`. */
const DEVNET_IMPORT = /(?:from\s+|import\s*\(\s*|require\s*\(\s*)["'](?:@\/|(?:\.\.?\/)+)devnet(?:\/[^"']*)?["']/;

function sourceFiles(folder: string): string[] {
  let entries: string[];
  try {
    entries = readdirSync(folder);
  } catch {
    return [];
  }
  return entries.flatMap((entry) => {
    const path = join(folder, entry);
    if (statSync(path).isDirectory()) return entry === "node_modules" ? [] : sourceFiles(path);
    return /\.(ts|tsx|js|jsx|mjs|cjs)$/.test(entry) ? [path] : [];
  });
}

describe("the production build", () => {
  it("imports nothing from devnet/ in app/, lib/ or components/", () => {
    const offenders = APP_FOLDERS.flatMap((folder) => sourceFiles(join(ROOT, folder)))
      .filter((file) => DEVNET_IMPORT.test(readFileSync(file, "utf8")))
      .map((file) => relative(ROOT, file));
    expect(offenders).toEqual([]);
  });

  it("recognises the import forms it forbids", () => {
    expect(DEVNET_IMPORT.test(`import { startDevnet } from "../../devnet";`)).toBe(true);
    expect(DEVNET_IMPORT.test(`import x from "@/devnet/start-devnet";`)).toBe(true);
    expect(DEVNET_IMPORT.test(`await import("../devnet/index")`)).toBe(true);
    expect(DEVNET_IMPORT.test(`import { readDevnetCoordinates } from "./devnet-coordinates";`)).toBe(false);
    expect(DEVNET_IMPORT.test(`import { x } from "../network/devnet-coordinates";`)).toBe(false);
  });
});
