/**
 * A budget grant in the page, end to end on the local world: the demo user's wallet signs one
 * Permit2 grant through the side panel's card, a paid question is then paid from the wallet
 * with no approval prompt (the chat request carries the grant's token), the panel shows what
 * is left, and after Revoke the next paid question asks for approval again. A grant revoked
 * behind the page's back is refused by the chat (403), and the page drops its token.
 */
import { createWalletClient, erc20Abi, http, maxUint256 } from "viem";
import type { Browser, Page, Request } from "playwright-core";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { PERMIT2 } from "../../lib/grants/grant-permit";
import { parseUsdc } from "../../lib/money";
import { gotoChat, launchBrowser, openPage, screenshot, sendMessage, usdcReader, waitForIdle } from "./support/browser";
import "./support/context";

const { baseUrl, rpcUrl, usdc, userAddress } = inject("e2e");
const chain = usdcReader(rpcUrl, usdc);
const GRANT = 30_000n; // 0.03 USDC
let browser: Browser;

beforeAll(async () => {
  browser = await launchBrowser();
});

afterAll(async () => {
  await browser?.close();
  // Back to the local world's start: the demo user allows Permit2 the maximum.
  await setPermit2Allowance(maxUint256);
});

/** What the demo user lets Permit2 move, read from the chain. */
function permit2Allowance(): Promise<bigint> {
  return chain.client.readContract({ address: usdc, abi: erc20Abi, functionName: "allowance", args: [userAddress, PERMIT2] });
}

/** Sets the demo user's Permit2 allowance through the node (which holds the demo user's key, as the page's demo wallet uses it). */
async function setPermit2Allowance(amount: bigint): Promise<void> {
  const wallet = createWalletClient({ account: userAddress, transport: http(rpcUrl) });
  const hash = await wallet.writeContract({ chain: null, address: usdc, abi: erc20Abi, functionName: "approve", args: [PERMIT2, amount] });
  await chain.client.waitForTransactionReceipt({ hash });
}

type Recorded = { walletMethods: string[]; chatAuthorizations: (string | undefined)[] };

/** What the page asked the node to do for the demo wallet, and the Authorization of each chat request. */
function record(page: Page): Recorded {
  const recorded: Recorded = { walletMethods: [], chatAuthorizations: [] };
  page.on("request", (request: Request) => {
    if (request.method() !== "POST") return;
    if (request.url().startsWith(rpcUrl)) {
      const body = request.postDataJSON() as { method?: string } | { method?: string }[] | null;
      for (const call of Array.isArray(body) ? body : [body]) if (call?.method) recorded.walletMethods.push(call.method);
    } else if (new URL(request.url()).pathname === "/api/chat") {
      recorded.chatAuthorizations.push(request.headers()["authorization"]);
    }
  });
  return recorded;
}

const signatures = (recorded: Recorded) => recorded.walletMethods.filter((method) => method.startsWith("eth_signTypedData")).length;
const transactions = (recorded: Recorded) => recorded.walletMethods.filter((method) => method === "eth_sendTransaction").length;

/** Connects the demo wallet, chooses it as payer, and signs a grant of 0.03 USDC for an hour through the card. */
async function grantThroughCard(page: Page): Promise<void> {
  await gotoChat(page, baseUrl);
  await page.getByTestId("connect-local-wallet").click();
  await expect.poll(() => page.getByTestId("wallet-balance").getAttribute("data-base-units")).toMatch(/^\d+$/);
  await page.getByTestId("payer-wallet").click();
  await page.getByTestId("grant-amount").fill("0.03");
  await page.getByTestId("grant-expiry-3600").click();
  const words = await page.getByTestId("grant-words").innerText();
  expect(words).toContain("up to 0.03 USDC in all until");
  expect(words).toMatch(/Permit2 enforces both on chain/);
  expect(words).toMatch(/revoke it any time/);
  expect(await page.getByTestId("grant-button").innerText()).toBe("Let the agent spend up to 0.03 USDC");
  await page.getByTestId("grant-button").click();
  await page.getByTestId("grant-active").waitFor({ timeout: 30_000 });
  expect(await page.getByTestId("grant-remaining").innerText()).toBe("0.03 USDC");
}

/** The grant this tab keeps: in sessionStorage, never in localStorage. */
async function storedGrant(page: Page): Promise<{ status: string; id?: string; token?: string } | null> {
  return page.evaluate(() => {
    const raw = window.sessionStorage.getItem("x402-agent.grant.v1");
    return raw === null ? null : (JSON.parse(raw) as { status: string; id?: string; token?: string });
  });
}

describe("a budget grant in the page", () => {
  it("one signature makes a grant; a paid question is paid without a prompt; Revoke brings the prompt back", async () => {
    const { page, context, errors } = await openPage(browser);
    const recorded = record(page);
    try {
      await grantThroughCard(page);
      // One signature, and no approve transaction: the demo user already allows Permit2 enough.
      expect(signatures(recorded)).toBe(1);
      expect(transactions(recorded)).toBe(0);
      const kept = await storedGrant(page);
      expect(kept?.status).toBe("active");
      expect(kept?.token).toMatch(/^x402g_/);
      expect(await page.evaluate(() => JSON.stringify(window.localStorage))).not.toContain("x402g_");
      await screenshot(page, "grant-active");

      const before = await chain.balanceOf(userAddress);
      await sendMessage(page, "What's the weather in Lisbon?");
      const card = page.getByTestId("payment-card").first();
      await expect.poll(() => card.getAttribute("data-status"), { timeout: 45_000 }).toBe("delivered");
      await waitForIdle(page);
      // Paid from the wallet under the grant: no approval card, no second signature.
      expect(await page.getByTestId("approval-card").count()).toBe(0);
      expect(signatures(recorded)).toBe(1);
      expect(recorded.chatAuthorizations).toEqual([`Bearer ${kept?.token}`]);
      const price = before - (await chain.balanceOf(userAddress));
      expect(price).toBeGreaterThan(0n);
      expect((await page.getByTestId("assistant-text").allInnerTexts()).join("\n")).toContain("Lisbon");

      // What is left dropped by exactly the price.
      await expect.poll(() => page.getByTestId("grant-remaining").getAttribute("data-remaining"), { timeout: 20_000 }).not.toBe("0.03");
      const remaining = parseUsdc((await page.getByTestId("grant-remaining").getAttribute("data-remaining")) ?? "");
      expect(remaining).toBe(GRANT - price);
      await screenshot(page, "grant-spent");

      await page.getByTestId("grant-revoke").click();
      await expect.poll(() => page.getByTestId("grant-ended").innerText()).toMatch(/^The grant was revoked\./);
      expect((await storedGrant(page))?.token).toBeUndefined();
      await page.getByTestId("grant-form").waitFor();

      // Back to asking per payment: the next paid question opens an approval card, with no token sent.
      await sendMessage(page, "What's the weather in Lisbon?");
      await page.getByTestId("approval-card").waitFor({ timeout: 45_000 });
      await waitForIdle(page);
      expect(await page.getByTestId("approval-card").getAttribute("data-decision")).toBe("open");
      expect(recorded.chatAuthorizations.at(-1)).toBeUndefined();
      expect(signatures(recorded)).toBe(1);
      expect(errors).toEqual([]);
      await screenshot(page, "grant-revoked");
    } finally {
      await context.close();
    }
  });

  it("a grant revoked elsewhere: the chat refuses it (403), the page drops the token and says the grant ended", async () => {
    const { page, context } = await openPage(browser);
    const recorded = record(page);
    try {
      await grantThroughCard(page);
      const kept = await storedGrant(page);
      // Revoked behind the page's back, as from another tab or with curl.
      const revoked = await fetch(`${baseUrl}/api/grants/${kept?.id}`, { method: "DELETE", headers: { authorization: `Bearer ${kept?.token}` } });
      expect(revoked.status).toBe(200);
      const before = await chain.balanceOf(userAddress);

      await sendMessage(page, "What's the weather in Lisbon?");
      await expect.poll(() => page.getByTestId("grant-ended").innerText(), { timeout: 30_000 }).toMatch(/^The grant ended: the chat refused to pay under it/);
      await waitForIdle(page);
      expect(recorded.chatAuthorizations).toEqual([`Bearer ${kept?.token}`]);
      expect(await storedGrant(page)).toEqual({ status: "ended", message: expect.stringMatching(/^The grant ended/) });
      expect(await chain.balanceOf(userAddress)).toBe(before);
      // The refused message comes back to the box; sent again, it asks for approval.
      expect(await page.getByTestId("chat-input").inputValue()).toBe("What's the weather in Lisbon?");
      await page.getByTestId("chat-input").press("Enter");
      await page.getByTestId("approval-card").waitFor({ timeout: 45_000 });
      expect(recorded.chatAuthorizations.at(-1)).toBeUndefined();
    } finally {
      await context.close();
    }
  });

  it("when the wallet has not approved Permit2 enough, the card has it approve exactly the grant's amount first, then sign", async () => {
    const { page, context } = await openPage(browser);
    const recorded = record(page);
    try {
      await setPermit2Allowance(0n);
      await grantThroughCard(page);
      // One approve transaction for exactly 0.03 USDC (never unlimited), then the one signature.
      expect(transactions(recorded)).toBe(1);
      expect(signatures(recorded)).toBe(1);
      expect(await permit2Allowance()).toBe(GRANT);
      expect((await storedGrant(page))?.status).toBe("active");
    } finally {
      await context.close();
    }
  });
});
