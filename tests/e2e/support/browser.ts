/**
 * Browser helpers for the e2e tests: Debian's Chromium driven by playwright-core (Playwright's
 * own browser download is not available here), one screenshot per test, and on-chain reads.
 */
import { mkdirSync } from "node:fs";
import path from "node:path";
import { chromium, type Browser, type BrowserContext, type Page } from "playwright-core";
import { createPublicClient, erc20Abi, http } from "viem";
import { REPO_ROOT } from "./app-server";

export const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";
export const SCREENSHOT_DIR = path.join(REPO_ROOT, "test-results/e2e");

export const DESKTOP = { width: 1280, height: 860 };
export const PHONE = { width: 390, height: 844 };

export function launchBrowser(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM_PATH,
    args: [
      "--headless",
      "--no-sandbox",
      "--disable-gpu",
      "--disable-dev-shm-usage",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
      "--no-first-run",
    ],
  });
}

export type OpenedPage = {
  context: BrowserContext;
  page: Page;
  /** Uncaught page errors and console errors, for assertions. */
  errors: string[];
};

/** A fresh context (empty localStorage) with one page; `goto` waits until the chat is usable. */
export async function openPage(browser: Browser, options: { viewport?: { width: number; height: number } } = {}): Promise<OpenedPage> {
  const context = await browser.newContext({ viewport: options.viewport ?? DESKTOP, deviceScaleFactor: 1 });
  const page = await context.newPage();
  page.setDefaultTimeout(15_000);
  const errors: string[] = [];
  page.on("pageerror", (error) => errors.push(`pageerror: ${error.message}`));
  page.on("console", (message) => {
    if (message.type() === "error") errors.push(`console: ${message.text()}`);
  });
  return { context, page, errors };
}

export async function gotoChat(page: Page, baseUrl: string): Promise<void> {
  await page.goto(baseUrl, { waitUntil: "domcontentloaded" });
  await page.getByTestId("chat-input").waitFor({ state: "visible" });
}

export async function screenshot(page: Page, name: string): Promise<string> {
  mkdirSync(SCREENSHOT_DIR, { recursive: true });
  const file = path.join(SCREENSHOT_DIR, `${name}.png`);
  await page.screenshot({ path: file, fullPage: false });
  return file;
}

/** Types a message and sends it with Enter, as a person would. */
export async function sendMessage(page: Page, text: string): Promise<void> {
  const input = page.getByTestId("chat-input");
  await input.fill(text);
  await input.press("Enter");
}

/** Waits until no request runs: the Send button is back. */
export async function waitForIdle(page: Page, timeoutMs = 50_000): Promise<void> {
  await page.getByTestId("send-button").waitFor({ state: "visible", timeout: timeoutMs });
}

export function usdcReader(rpcUrl: string, usdc: `0x${string}`) {
  const client = createPublicClient({ transport: http(rpcUrl) });
  return {
    client,
    balanceOf: (address: `0x${string}`) => client.readContract({ address: usdc, abi: erc20Abi, functionName: "balanceOf", args: [address] }),
  };
}
