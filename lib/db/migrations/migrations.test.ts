import { readdirSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { MIGRATIONS, migrationProvider } from "./index";

const folder = fileURLToPath(new URL(".", import.meta.url));
const migrationFiles = readdirSync(folder)
  .filter((name) => /^\d{4}_[a-z0-9_]+\.ts$/.test(name))
  .sort();

/** What databases already remember (`kysely_migration.name`): these names never change. */
const APPLIED_IN_RELEASES = [
  "0001_payment_journal",
  "0002_reserve_budget_function",
  "0003_api_keys",
  "0004_budget_scopes",
  "0005_payment_receipts",
  "0006_paid_payees",
  "0007_record_payment_step",
  "0008_pooled_budget",
  "0009_database_clock",
  "0010_payments_by_request",
  "0011_upto_settlement",
];

describe("migrations", () => {
  it("keeps the names databases already ran, in their order", async () => {
    const names = Object.keys(await migrationProvider.getMigrations());
    expect(names.slice(0, APPLIED_IN_RELEASES.length)).toEqual(APPLIED_IN_RELEASES);
    expect(names).toEqual([...names].sort());
  });

  it("lists every migration module once, under the module's own name", async () => {
    expect(Object.keys(MIGRATIONS)).toEqual(migrationFiles.map((file) => file.replace(/\.ts$/, "")));
    for (const file of migrationFiles) {
      const exported = Object.values(await import(`./${file.replace(/\.ts$/, "")}`));
      expect(exported).toEqual([MIGRATIONS[file.replace(/\.ts$/, "")]]);
    }
  });
});
