/**
 * "My wallet" with the Local demo wallet, end to end: the server quotes, the browser shows the
 * approval card, the local node signs the EIP-712 authorization for the demo user, and the
 * repeated request pays. The demo user's balance is read on-chain before and after.
 */
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { parseUsdc } from "../../lib/money";
import { gotoChat, launchBrowser, openPage, screenshot, sendMessage, usdcReader, waitForIdle } from "./support/browser";
import "./support/context";

const { baseUrl, rpcUrl, usdc, userAddress } = inject("e2e");
const chain = usdcReader(rpcUrl, usdc);
let browser: Browser;

beforeAll(async () => {
  browser = await launchBrowser();
});

afterAll(async () => {
  await browser?.close();
});

async function askWithMyWallet(page: Page, question: string): Promise<bigint> {
  await gotoChat(page, baseUrl);
  await page.getByTestId("connect-local-wallet").click();
  await expect.poll(() => page.getByTestId("wallet-balance").getAttribute("data-base-units")).toMatch(/^\d+$/);
  await page.getByTestId("payer-wallet").click();
  await sendMessage(page, question);
  await page.getByTestId("approval-card").waitFor({ timeout: 45_000 });
  await waitForIdle(page);
  const amountText = await page.getByTestId("approval-amount").innerText();
  const amount = parseUsdc(amountText.replace(/\s*USDC$/, ""));
  if (amount === undefined) throw new Error(`unreadable quoted amount: ${amountText}`);
  return amount;
}

describe("my wallet purchase (local demo wallet)", () => {
  it("Approve signs, pays, and the demo user's balance falls by exactly the quoted amount", async () => {
    const { page, context, errors } = await openPage(browser);
    try {
      const before = await chain.balanceOf(userAddress);
      const quoted = await askWithMyWallet(page, "What's the weather in Lisbon?");
      expect(quoted).toBeGreaterThan(0n);
      expect(await page.getByTestId("finish-reason").last().getAttribute("data-reason")).toBe("stop");
      // The server asks in words too, until the approval is answered.
      expect((await page.getByTestId("assistant-text").allInnerTexts()).join("\n")).toMatch(/in your wallet to continue/);
      await screenshot(page, "my-wallet-approval");

      await page.getByTestId("approve-button").click();
      const card = page.getByTestId("payment-card").first();
      await expect.poll(() => card.getAttribute("data-status"), { timeout: 45_000 }).toMatch(/^(confirmed|delivered)$/);
      await waitForIdle(page);
      expect(await card.getByTestId("tx-hash").getAttribute("data-tx-hash")).toMatch(/^0x[0-9a-fA-F]{64}$/);

      const after = await chain.balanceOf(userAddress);
      expect(before - after).toBe(quoted);
      // The page reads the new balance too.
      await expect.poll(() => page.getByTestId("wallet-balance").getAttribute("data-base-units"), { timeout: 20_000 }).toBe(after.toString());
      const answer = (await page.getByTestId("assistant-text").allInnerTexts()).join("\n");
      expect(answer).toContain("Lisbon");
      // Paid and answered: nothing above the answer still asks for the approval.
      expect(answer).not.toMatch(/to continue/);
      expect(await card.innerText()).not.toContain("in your wallet");
      expect(await page.getByTestId("approval-card").innerText()).toMatch(/^You approved [\d.]+ USDC to .+: it was paid/);
      expect(errors).toEqual([]);
      await screenshot(page, "my-wallet-confirmed");
    } finally {
      await context.close();
    }
  });

  it("Reject signs nothing and leaves the balance unchanged", async () => {
    const { page, context } = await openPage(browser);
    try {
      const before = await chain.balanceOf(userAddress);
      const quoted = await askWithMyWallet(page, "What's the weather in Lisbon?");
      await page.getByTestId("reject-button").click();
      expect(await page.getByTestId("approval-card").first().getAttribute("data-decision")).toBe("rejected");
      const followUp = page.getByTestId("user-message").last();
      expect(await followUp.innerText()).toMatch(/^I declined the payment of [\d.]+ USDC to .+\.$/);
      expect(await followUp.innerText()).toContain(`${Number(quoted) / 1e6} USDC`);
      await waitForIdle(page);

      const statuses = await page.getByTestId("payment-card").evaluateAll((cards) => cards.map((card) => card.getAttribute("data-status")));
      expect(statuses.filter((status) => status === "confirmed" || status === "delivered")).toEqual([]);
      expect(await chain.balanceOf(userAddress)).toBe(before);
      await screenshot(page, "my-wallet-rejected");
    } finally {
      await context.close();
    }
  });
});
