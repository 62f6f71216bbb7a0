/**
 * Signed receipts, end to end: the built app, the demo model, the local world's services
 * signing receipts with the payee's key (x402 `offer-receipt`). The payment card says who
 * signed the receipt and that the agent verified it; with the world's `wrongReceiptSigner`
 * fault, it says the receipt is not verified, and why.
 */
import { readFileSync } from "node:fs";
import type { Browser, Locator } from "playwright-core";
import { afterAll, afterEach, beforeAll, describe, expect, inject, it } from "vitest";
import { gotoChat, launchBrowser, openPage, screenshot, sendMessage, waitForIdle } from "./support/browser";
import "./support/context";

const { baseUrl, devnetFile } = inject("e2e");
const world = JSON.parse(readFileSync(devnetFile, "utf8")) as { faultsUrl: string; accounts: { merchant: { address: string } } };
let browser: Browser;

async function setFaults(update: Record<string, unknown>): Promise<void> {
  const response = await fetch(world.faultsUrl, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(update) });
  expect(response.status).toBe(200);
}

/** The receipt line of the last payment card, once its payment is delivered. */
async function receiptOfLastPayment(cards: Locator): Promise<Locator> {
  const card = cards.last();
  await expect.poll(() => card.getAttribute("data-status"), { timeout: 45_000 }).toBe("delivered");
  const receipt = card.getByTestId("signed-receipt");
  await receipt.waitFor({ state: "visible" });
  return receipt;
}

beforeAll(async () => {
  browser = await launchBrowser();
});

afterEach(async () => {
  await setFaults({ wrongReceiptSigner: [] });
});

afterAll(async () => {
  await browser?.close();
});

describe("signed receipts on the payment card", () => {
  it("shows the payee's verified receipt, and a receipt signed by someone else as not verified", async () => {
    const { page, context, errors } = await openPage(browser);
    try {
      await gotoChat(page, baseUrl);
      await page.getByTestId("payer-agent").click();
      const cards = page.getByTestId("payment-card");

      await sendMessage(page, "What's the weather in Lisbon?");
      const verified = await receiptOfLastPayment(cards);
      await waitForIdle(page);
      const merchant = world.accounts.merchant.address;
      expect(await verified.getAttribute("data-verified")).toBe("true");
      expect(await verified.getAttribute("title")).toBe(merchant);
      expect(await verified.innerText()).toBe(`Receipt signed by ${merchant.slice(0, 6)}…${merchant.slice(-4)}, verified`);
      await verified.scrollIntoViewIfNeeded();
      await screenshot(page, "signed-receipt-verified");

      await setFaults({ wrongReceiptSigner: ["weather"] });
      await sendMessage(page, "What's the weather in Porto?");
      const unverified = await receiptOfLastPayment(cards);
      await waitForIdle(page);
      expect(await unverified.getAttribute("data-verified")).toBe("false");
      expect(await unverified.innerText()).toMatch(new RegExp(`^Receipt not verified: signed by 0x[0-9a-fA-F]{40}, not by the payee ${merchant}$`));
      await unverified.scrollIntoViewIfNeeded();
      await screenshot(page, "signed-receipt-unverified");
      expect(errors).toEqual([]);
    } finally {
      await context.close();
    }
  });
});
