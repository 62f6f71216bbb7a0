/**
 * A purchase over the spending limits: the premium report costs 5 USDC, the server's default
 * per-payment limit is 1 USDC. The page shows the limit outcome and no payment is made.
 */
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { gotoChat, launchBrowser, openPage, screenshot, sendMessage, waitForIdle } from "./support/browser";
import "./support/context";

const { baseUrl } = inject("e2e");
let browser: Browser;

beforeAll(async () => {
  browser = await launchBrowser();
});

afterAll(async () => {
  await browser?.close();
});

describe("spending limits", () => {
  it("a 5 USDC report over the default 1 USDC per-payment limit ends limit-exceeded, unpaid", async () => {
    const { page, context } = await openPage(browser);
    try {
      await gotoChat(page, baseUrl);
      await page.getByTestId("payer-agent").click();
      // Empty fields: the server's defaults apply.
      expect(await page.getByTestId("limit-per-payment").inputValue()).toBe("");
      await sendMessage(page, "buy the premium report");
      const finish = page.getByTestId("finish-reason").last();
      await finish.waitFor({ timeout: 45_000 });
      await waitForIdle(page);
      expect(await finish.getAttribute("data-reason")).toBe("limit-exceeded");
      const statuses = await page.getByTestId("payment-card").evaluateAll((cards) => cards.map((card) => card.getAttribute("data-status")));
      expect(statuses.filter((status) => status === "confirmed" || status === "delivered")).toEqual([]);
      expect(await page.getByTestId("receipt").count()).toBe(0);
      await screenshot(page, "limits-exceeded");
    } finally {
      await context.close();
    }
  });
});
