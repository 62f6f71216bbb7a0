/**
 * The first ten minutes, end to end with the offline demo model and the local world: the empty
 * chat suggests requests built from what discovery lists, and delivered answers (a weather
 * report, a city guide, a list of headlines) read as result cards, on a desktop and on a 390 px
 * phone, with the demo label as one notice line instead of data. The history page shows the
 * same card for a payment this tab saw delivered, and says so when it has no copy.
 */
import type { Browser, Locator, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { DESKTOP, gotoChat, launchBrowser, openPage, PHONE, screenshot, sendMessage, waitForIdle } from "./support/browser";
import "./support/context";

const { baseUrl, userAddress } = inject("e2e");
let browser: Browser;

beforeAll(async () => {
  browser = await launchBrowser();
});

afterAll(async () => {
  await browser?.close();
});

/** Asks, waits for the answer, and returns the answer's result card. */
async function ask(page: Page, text: string): Promise<Locator> {
  const before = await page.getByTestId("result-card").count();
  await sendMessage(page, text);
  await expect.poll(() => page.getByTestId("result-card").count(), { timeout: 45_000 }).toBe(before + 1);
  await waitForIdle(page);
  return page.getByTestId("result-card").nth(before);
}

/** The card reads as a card: the demo label is one notice, never a `demo: true` line of data. */
async function expectReadable(card: Locator): Promise<void> {
  expect(await card.getByTestId("result-notice").innerText()).toMatch(/synthetic demo data/i);
  const data = await card.getByTestId("result-data").innerText();
  expect(data).not.toMatch(/demo\s*:?\s*true/i);
  expect(data).not.toMatch(/Synthetic demo data/);
  expect(await card.innerText()).not.toMatch(/demo\s*:\s*true/i);
  // Nor anywhere else on the page: the demo model's answer leaves the marker to the card's notice.
  expect(await card.page().locator("main").innerText()).not.toMatch(/demo\**\s*:\**\s*true/i);
  // Text only: the service's data carries no links, images or markup.
  expect(await card.locator("a, img, script, iframe").count()).toBe(0);
}

/** Shows the card at the top of the view, on a desktop and on a phone, and checks nothing overflows. */
async function shootBothWidths(page: Page, card: Locator, name: string): Promise<void> {
  await page.setViewportSize(DESKTOP);
  await card.evaluate((element) => element.scrollIntoView({ block: "start" }));
  await screenshot(page, `${name}-desktop`);
  await page.setViewportSize(PHONE);
  await card.evaluate((element) => element.scrollIntoView({ block: "start" }));
  expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(PHONE.width);
  const box = await card.boundingBox();
  expect(box!.x).toBeGreaterThanOrEqual(0);
  expect(box!.x + box!.width).toBeLessThanOrEqual(PHONE.width);
  // A wide table may scroll inside its own box; the card itself never runs past its edge.
  expect(await card.evaluate((element) => element.scrollWidth <= element.clientWidth + 1)).toBe(true);
  await screenshot(page, `${name}-phone`);
  await page.setViewportSize(DESKTOP);
}

describe("suggestions from the world", () => {
  it("the empty chat offers four or five priced requests from discovery, and a click fills the composer", async () => {
    const { page, context, errors } = await openPage(browser);
    try {
      const response = await fetch(`${baseUrl}/api/suggestions`);
      expect(response.headers.get("cache-control")).toBe("public, max-age=60");
      const served = (await response.json()) as { suggestions: { text: string; price: string }[] };
      expect(served.suggestions.length).toBeGreaterThanOrEqual(4);
      expect(served.suggestions.length).toBeLessThanOrEqual(5);
      await gotoChat(page, baseUrl);
      const chips = page.getByTestId("suggestion");
      await expect.poll(() => chips.count(), { timeout: 15_000 }).toBe(served.suggestions.length);
      for (const [index, suggestion] of served.suggestions.entries()) {
        expect(await chips.nth(index).innerText()).toBe(`${suggestion.text} ${suggestion.price} USDC`);
        expect(await chips.nth(index).getAttribute("data-price")).toBe(suggestion.price);
      }
      await screenshot(page, "suggestions-desktop");
      await chips.first().click();
      expect(await page.getByTestId("chat-input").inputValue()).toBe(served.suggestions[0]?.text);
      // Nothing is sent by a click alone.
      expect(await page.getByTestId("assistant-message").count()).toBe(0);
      await page.setViewportSize(PHONE);
      await page.getByTestId("chat-input").fill("");
      expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(PHONE.width);
      await screenshot(page, "suggestions-phone");
      expect(errors).toEqual([]);
    } finally {
      await context.close();
    }
  });
});

describe("result cards", () => {
  it("a weather report, a city guide and a list of headlines read as cards on a desktop and on a phone", async () => {
    const { page, context, errors } = await openPage(browser);
    try {
      await gotoChat(page, baseUrl);
      await page.getByTestId("payer-agent").click();

      // A flat record with a nested list of records: facts, then a table of the forecast.
      const weather = await ask(page, "What's the weather in Lisbon?");
      await expectReadable(weather);
      expect(await weather.getByTestId("asked-field").allInnerTexts()).toEqual(["city Lisbon"]);
      const facts = await weather.getByTestId("result-data").innerText();
      expect(facts).toMatch(/City\s+Lisbon/i);
      expect(facts).toMatch(/Temperature\s+-?\d+ °C/i);
      expect(facts).toMatch(/Humidity\s+\d+%/i);
      expect(await weather.getByTestId("result-table").count()).toBe(1);
      expect(await weather.getByTestId("result-row").count()).toBe(3);
      expect(await weather.locator("th").allInnerTexts()).toEqual(["Day", "Conditions", "High (°C)", "Low (°C)"]);
      // The card sits right under its payment card, before the model's text.
      expect(await page.locator('[data-testid="payment-card"] + [data-testid="result-card"]').count()).toBe(1);
      await shootBothWidths(page, weather, "result-card-weather");

      // A record with a list of picks: one list item per pick.
      const guide = await ask(page, "Buy the food guide for Lisbon");
      await expectReadable(guide);
      expect(await guide.getByTestId("asked-field").allInnerTexts()).toEqual(["days 2"]);
      expect(await guide.getByTestId("result-data").innerText()).toMatch(/Topic\s+food/i);
      const picks = guide.getByTestId("result-list").locator("li");
      expect(await picks.count()).toBeGreaterThanOrEqual(1);
      for (const pick of await picks.allInnerTexts()) expect(pick).toMatch(/ in Lisbon$/);
      await shootBothWidths(page, guide, "result-card-guide");

      // An array of records: a table, one row per headline.
      const news = await ask(page, "Get today's headlines about AI");
      await expectReadable(news);
      expect(await news.getByTestId("result-row").count()).toBe(5);
      expect(await news.locator("th").allInnerTexts()).toEqual(["Title", "Source", "Minutes ago"]);
      await shootBothWidths(page, news, "result-card-news");

      expect(await page.getByTestId("result-card").count()).toBe(3);
      expect(errors).toEqual([]);
    } finally {
      await context.close();
    }
  });
});

describe("result cards in the payment history", () => {
  it("a payment this tab saw delivered shows its card; another browser is told the server keeps no copy", async () => {
    const { page, context, errors } = await openPage(browser);
    try {
      await gotoChat(page, baseUrl);
      await page.getByTestId("connect-local-wallet").click();
      await page.getByTestId("wallet-connected").waitFor();
      await page.getByTestId("payer-wallet").click();
      await sendMessage(page, "What's the weather in Porto?");
      await page.getByTestId("approve-button").waitFor({ timeout: 45_000 });
      await waitForIdle(page);
      await page.getByTestId("approve-button").click();
      const card = page.getByTestId("result-card");
      await card.waitFor({ timeout: 45_000 });
      await waitForIdle(page);
      const paymentId = await page.getByTestId("payment-card").first().getAttribute("data-payment-id");

      await page.getByTestId("history-link").click();
      await page.waitForURL(`${baseUrl}/payments`);
      await page.getByTestId("history-locked").waitFor();
      if (await page.getByTestId("wallet-disconnected").isVisible()) await page.getByTestId("connect-local-wallet").click();
      await page.getByTestId("wallet-connected").waitFor();
      await page.getByTestId("sign-in").click();
      await page.getByTestId("signed-in").waitFor();
      const row = page.locator(`[data-testid="payment-row"][data-payment-id="${paymentId}"]`);
      await row.waitFor();
      await row.getByTestId("payment-details-toggle").click();
      const kept = page.getByTestId("payment-details-row").getByTestId("result-card");
      await kept.waitFor();
      await expectReadable(kept);
      expect(await kept.getByTestId("asked-field").allInnerTexts()).toEqual(["city Porto"]);
      expect(await kept.getByTestId("result-row").count()).toBe(3);
      await kept.evaluate((element) => element.scrollIntoView({ block: "center" }));
      await screenshot(page, "result-card-history");

      // A new browser context has no copy: the row says what was asked, and that the answer is not kept.
      const other = await openPage(browser, { viewport: PHONE });
      try {
        await other.page.goto(`${baseUrl}/payments`);
        await other.page.getByTestId("history-locked").waitFor();
        await other.page.getByTestId("connect-local-wallet").click();
        await other.page.getByTestId("wallet-connected").waitFor();
        await other.page.getByTestId("sign-in").click();
        await other.page
          .getByTestId("signed-in")
          .getAttribute("data-address")
          .then((address) => expect(address).toBe(userAddress));
        const otherRow = other.page.locator(`[data-testid="payment-row"][data-payment-id="${paymentId}"]`);
        await otherRow.getByTestId("payment-details-toggle").click();
        const details = other.page.getByTestId("payment-details");
        await details.waitFor();
        expect(await details.getByTestId("asked-field").allInnerTexts()).toEqual(["city Porto"]);
        expect(await details.getByTestId("no-result-data").innerText()).toMatch(/not kept by the server/);
        expect(await other.page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(PHONE.width);
        await details.evaluate((element) => element.scrollIntoView({ block: "center" }));
        // The table scrolls sideways on a phone; the details stay within the screen.
        const box = await details.boundingBox();
        expect(box!.x).toBeGreaterThanOrEqual(0);
        expect(box!.x + box!.width).toBeLessThanOrEqual(PHONE.width);
        await screenshot(other.page, "result-card-history-elsewhere-phone");
      } finally {
        await other.context.close();
      }
      expect(errors.filter((error) => !/status of (401|403)/.test(error))).toEqual([]);
    } finally {
      await context.close();
    }
  });
});
