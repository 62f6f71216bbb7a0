/**
 * Wallet edges in the browser: what /api/network reveals, a browser wallet on the wrong
 * network (detected, switch offered), and a wallet that refuses to sign (calm, nothing sent).
 * The browser wallet is a small EIP-1193 stand-in (support/fake-wallet.ts); the chat answers
 * are scripted (support/fake-chat.ts).
 */
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { approvalFixture, quoteFor } from "./support/approval-fixture";
import { gotoChat, launchBrowser, openPage, screenshot, sendMessage, waitForIdle } from "./support/browser";
import "./support/context";
import { finishEvent, installFakeChat, recordedRequests, streamResponse } from "./support/fake-chat";
import { installFakeWallet } from "./support/fake-wallet";

const { baseUrl, usdc, chainId, userAddress, rpcUrl } = inject("e2e");
/** Anvil's dev account 7: any address other than the demo user's will do. */
const BROWSER_ACCOUNT = "0x14dC79964da2C08b23698B3D3cc7Ca32193d9955";
let browser: Browser;

beforeAll(async () => {
  browser = await launchBrowser();
});

afterAll(async () => {
  await browser?.close();
});

describe("wallet", () => {
  it("GET /api/network gives the browser public facts only", async () => {
    const response = await fetch(`${baseUrl}/api/network`);
    expect(response.status).toBe(200);
    const text = await response.text();
    const body = JSON.parse(text) as Record<string, unknown>;
    expect(Object.keys(body).sort()).toEqual(["caip2", "chainId", "demoUser", "explorerUrl", "label", "network", "rpcUrl", "usdc"]);
    expect(body).toMatchObject({
      network: "local",
      label: "Local devnet",
      chainId,
      caip2: `eip155:${chainId}`,
      usdc,
      explorerUrl: null,
      rpcUrl,
      demoUser: { address: userAddress },
    });
    // Nothing shaped like a private key (32 bytes of hex), nor the word.
    expect(text).not.toMatch(/0x[0-9a-fA-F]{64}/);
    expect(text.toLowerCase()).not.toContain("privatekey");
  });

  it("detects a browser wallet on another network and switches it", async () => {
    const { page, context } = await openPage(browser);
    try {
      await installFakeWallet(page, { account: BROWSER_ACCOUNT, chainId: 1 });
      await gotoChat(page, baseUrl);
      await page.getByRole("button", { name: "Connect browser wallet" }).click();
      const notice = page.getByTestId("wrong-network");
      await notice.waitFor();
      expect(await notice.innerText()).toContain("chain 1");
      await page.getByTestId("payer-wallet").click();
      await page.getByTestId("chat-input").fill("What's the weather in Lisbon?");
      expect(await page.getByTestId("send-button").isDisabled()).toBe(true);
      expect(await page.locator("#composer-hint").innerText()).toContain("Switch your wallet");
      await screenshot(page, "wallet-wrong-network");

      await notice.getByRole("button", { name: /Switch to/ }).click();
      await notice.waitFor({ state: "detached" });
      expect(await page.getByTestId("send-button").isEnabled()).toBe(true);
    } finally {
      await context.close();
    }
  });

  it("a wallet that refuses to sign is handled calmly: the card stays open and nothing is sent", async () => {
    const { page, context, errors } = await openPage(browser);
    try {
      const approval = approvalFixture({ from: BROWSER_ACCOUNT, usdc, chainId });
      const quote = quoteFor(chainId);
      await installFakeWallet(page, { account: BROWSER_ACCOUNT, chainId, refuseToSign: true });
      await installFakeChat(page, [
        streamResponse([
          { type: "payment", payment: { id: "pay_1", status: "awaiting-approval", ...quote, approval } },
          finishEvent({ finishReason: "stop", txHash: null, payments: [], pendingApproval: { id: "pay_1", approval } }),
        ]),
      ]);
      await gotoChat(page, baseUrl);
      await page.getByRole("button", { name: "Connect browser wallet" }).click();
      await page.getByTestId("wallet-connected").waitFor();
      await page.getByTestId("payer-wallet").click();
      await sendMessage(page, "What's the weather in Lisbon?");
      await page.getByTestId("approval-card").waitFor();
      await waitForIdle(page);

      await page.getByTestId("approve-button").click();
      await page.getByTestId("wallet-declined").waitFor();
      expect(await page.getByTestId("approval-card").getAttribute("data-decision")).toBe("open");
      expect(await page.getByTestId("approve-button").isEnabled()).toBe(true);
      expect(await recordedRequests(page)).toHaveLength(1);
      expect(await page.evaluate(() => (window as unknown as { __walletCalls: string[] }).__walletCalls)).toContain("eth_signTypedData_v4");
      expect(errors).toEqual([]);
      await screenshot(page, "wallet-refused-to-sign");
    } finally {
      await context.close();
    }
  });
});
