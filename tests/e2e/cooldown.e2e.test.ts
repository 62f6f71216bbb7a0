/**
 * A real 429: a second `next start` of the same build, against the same local world, with a
 * tight rate limit (2 requests per 4 s). All direct callers share one bucket, so requests from
 * the test use it up; the page's next message gets 429 with Retry-After.
 */
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { startAppServer, type AppServer } from "./support/app-server";
import { gotoChat, launchBrowser, openPage, screenshot, sendMessage } from "./support/browser";
import "./support/context";

const { devnetFile } = inject("e2e");
let browser: Browser;
let server: AppServer;

beforeAll(async () => {
  [browser, server] = await Promise.all([
    launchBrowser(),
    startAppServer({ X402_NETWORK: "local", DEVNET_FILE: devnetFile, RATE_LIMIT_REQUESTS: "2", RATE_LIMIT_WINDOW_SECONDS: "4" }),
  ]);
});

afterAll(async () => {
  await Promise.all([browser?.close(), server?.stop()]);
});

const chatRequest = (url: string, body: string) => fetch(`${url}/api/chat`, { method: "POST", headers: { "Content-Type": "application/json" }, body });

/**
 * Spends the window's allowance until the server itself answers 429 with at least 2 s left in
 * the window, so the page's next request is refused too however slow the machine is (a window
 * that is about to end is waited out and used up again). Streams are cancelled afterwards.
 */
async function useUpRateLimit(url: string): Promise<() => Promise<void>> {
  const body = JSON.stringify({ messages: [{ role: "user", content: "hello" }] });
  const open: Response[] = [];
  for (let attempt = 0; attempt < 20; attempt++) {
    const response = await chatRequest(url, body);
    if (response.status === 200) {
      open.push(response);
      continue;
    }
    expect(response.status).toBe(429);
    await response.arrayBuffer();
    const retryAfter = Number(response.headers.get("retry-after"));
    if (retryAfter >= 2) break;
    await new Promise((resolve) => setTimeout(resolve, retryAfter * 1000));
  }
  return async () => {
    await Promise.all(open.map((response) => response.body?.cancel().catch(() => undefined)));
  };
}

describe("rate limit cooldown (real server)", () => {
  it("shows the countdown from Retry-After and re-enables sending when it ends", async () => {
    const { page, context } = await openPage(browser);
    try {
      await gotoChat(page, server.url);
      const release = await useUpRateLimit(server.url);
      await sendMessage(page, "hello");
      await release();

      const cooldown = page.getByTestId("cooldown");
      await cooldown.waitFor({ timeout: 10_000 });
      const seconds = Number(await cooldown.getAttribute("data-seconds"));
      expect(seconds).toBeGreaterThanOrEqual(1);
      expect(seconds).toBeLessThanOrEqual(4);
      expect(await page.getByTestId("send-button").isDisabled()).toBe(true);
      expect(await page.getByTestId("request-problem").last().innerText()).toMatch(/too many requests/i);
      await screenshot(page, "cooldown-real-429");

      await cooldown.waitFor({ state: "detached", timeout: 6_000 });
      expect(await page.getByTestId("send-button").isEnabled()).toBe(true);
      // The refused message came back to the box; sending it now works.
      await page.getByTestId("chat-input").press("Enter");
      await page.getByTestId("finish-reason").last().waitFor({ timeout: 30_000 });
    } finally {
      await context.close();
    }
  });
});
