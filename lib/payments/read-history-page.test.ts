/** Paging by `createdAt`: every payment appears exactly once across pages, also when several share a millisecond. */
import { describe, expect, it } from "vitest";
import { MemoryJournal } from "../journal/memory-journal";
import { readHistoryPage } from "./read-history-page";

const PAYER = "0x52908400098527886E0F7030069857D2E4169EE7";

async function journalWith(createdAts: number[]): Promise<MemoryJournal> {
  const journal = new MemoryJournal();
  for (const [index, at] of createdAts.entries()) await journal.record({ id: `pay_${index}`, status: "delivered", at, payer: PAYER, payerKind: "user" });
  return journal;
}

async function readAll(journal: MemoryJournal, limit: number): Promise<string[][]> {
  const pages: string[][] = [];
  let before: number | undefined;
  for (;;) {
    const page = await readHistoryPage(journal, { payer: PAYER, before, limit });
    pages.push(page.payments.map((payment) => payment.id));
    if (page.nextCursor === undefined) return pages;
    before = page.nextCursor;
  }
}

describe("readHistoryPage", () => {
  it("pages newest first and ends with no cursor", async () => {
    const journal = await journalWith([1000, 2000, 3000, 4000, 5000]);
    expect(await readAll(journal, 2)).toEqual([["pay_4", "pay_3"], ["pay_2", "pay_1"], ["pay_0"]]);
  });

  it("gives no cursor when the page is exactly the rest", async () => {
    const journal = await journalWith([1000, 2000]);
    expect(await readHistoryPage(journal, { payer: PAYER, limit: 2 })).toMatchObject({ nextCursor: undefined });
  });

  it("keeps payments of the same millisecond on one page, so none is skipped", async () => {
    // pay_1, pay_2 and pay_3 share 2000; a page of 3 would otherwise end between them.
    const journal = await journalWith([1000, 2000, 2000, 2000, 3000]);
    const pages = await readAll(journal, 3);
    expect(pages[0]).toEqual(["pay_4"]);
    expect(pages.flat().sort()).toEqual(["pay_0", "pay_1", "pay_2", "pay_3", "pay_4"]);
  });
});
