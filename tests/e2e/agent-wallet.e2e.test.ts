/**
 * Agent wallet, end to end: the built app, the real chat endpoint with the demo model, the
 * local world (anvil, USDC, facilitator, paid services). No walletAddress is sent: the server
 * pays on its own within the limits.
 */
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { gotoChat, launchBrowser, openPage, screenshot, sendMessage, usdcReader, waitForIdle } from "./support/browser";
import "./support/context";
import { growthSamples, startGrowthRecorder } from "./support/growth-recorder";

const { baseUrl, rpcUrl, usdc } = inject("e2e");
let browser: Browser;

beforeAll(async () => {
  browser = await launchBrowser();
});

afterAll(async () => {
  await browser?.close();
});

describe("agent wallet purchase", () => {
  it("streams the answer progressively, confirms the payment on-chain and delivers the data", async () => {
    const { page, context, errors } = await openPage(browser);
    try {
      await gotoChat(page, baseUrl);
      await page.getByTestId("payer-agent").click();
      await startGrowthRecorder(page);
      await sendMessage(page, "What's the weather in Lisbon?");

      const card = page.getByTestId("payment-card").first();
      await expect.poll(() => card.getAttribute("data-status"), { timeout: 45_000 }).toMatch(/^(confirmed|delivered)$/);
      await waitForIdle(page);

      // Partial text was visible before the request ended, and it grew while Stop was shown.
      const samples = await growthSamples(page);
      const finalLength = samples.at(-1)?.length ?? 0;
      const whileRunning = samples.filter((sample) => sample.running && sample.length > 0);
      expect(whileRunning.some((sample) => sample.length < finalLength)).toBe(true);
      expect(new Set(whileRunning.map((sample) => sample.length)).size).toBeGreaterThanOrEqual(2);

      const txHash = await card.getByTestId("tx-hash").getAttribute("data-tx-hash");
      expect(txHash).toMatch(/^0x[0-9a-fA-F]{64}$/);
      const receipt = await usdcReader(rpcUrl, usdc).client.getTransactionReceipt({ hash: txHash as `0x${string}` });
      expect(receipt.status).toBe("success");

      const answer = (await page.getByTestId("assistant-message").last().getByTestId("assistant-text").allInnerTexts()).join("\n");
      expect(answer).toContain("Lisbon");
      expect(await page.getByTestId("finish-reason").last().getAttribute("data-reason")).toBe("payment-complete");
      expect(await page.getByTestId("receipt").count()).toBeGreaterThanOrEqual(1);
      expect(errors).toEqual([]);
      await screenshot(page, "agent-wallet-purchase");
    } finally {
      await context.close();
    }
  });
});
