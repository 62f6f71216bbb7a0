/**
 * The chat page against scripted streams (tests/e2e/support/fake-chat.ts): every event kind is
 * rendered, deterministically, without depending on the agent. The page, /api/network, the
 * local chain and the local demo wallet's signing are real.
 */
import { recoverTypedDataAddress } from "viem";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import type { PaymentEvent, StreamEvent, TransferAuthorizationTypedData } from "../../lib/stream";
import { decodePaymentSignatureHeader } from "../../lib/x402/payment-signature-header";
import { DESKTOP, gotoChat, launchBrowser, openPage, PHONE, screenshot, sendMessage, waitForIdle } from "./support/browser";
import { approvalFixture, quoteFor } from "./support/approval-fixture";
import "./support/context";
import {
  finishEvent,
  installFakeChat,
  openChatGate,
  problemResponse,
  recordedRequests,
  streamResponse,
  textEvents,
  type ScriptedResponse,
} from "./support/fake-chat";
import type { Browser, Page } from "playwright-core";

const { baseUrl, usdc, userAddress, chainId } = inject("e2e");
const quote = quoteFor(chainId);
const approvalFor = (from: string) => approvalFixture({ from, usdc, chainId });

const TX_HASH = `0x${"ab12".repeat(16)}` as const;

let browser: Browser;

beforeAll(async () => {
  browser = await launchBrowser();
});

afterAll(async () => {
  await browser?.close();
});

function payment(status: PaymentEvent["status"], fields: Partial<PaymentEvent> = {}): StreamEvent {
  return { type: "payment", payment: { id: "pay_weather_1", status, ...fields } };
}

const ANSWER =
  "Here is the **weather in Lisbon**: 21 °C and sunny.\n\n" +
  "- Source: [Weather Now](https://weather.example/lisbon)\n" +
  "- Bad link: [click](javascript:alert(1))\n\n" +
  "Raw HTML stays text: <img src=x onerror=alert(1)>";

function agentPurchaseScript(options: { pauseAfterFirstSentence?: boolean } = {}): ScriptedResponse {
  const script = streamResponse([
    ...textEvents("Let me find a weather service. "),
    { type: "payment", payment: { id: "discovery_1", status: "discovering", message: "Searching the Bazaar" } },
    {
      type: "payment",
      payment: {
        id: "discovery_1",
        status: "discovered",
        services: [
          {
            name: "Weather Now",
            resource: quote.resource,
            price: "0.01",
            description: "Current weather",
            x402Version: 2,
            usage: "GET ?city=<string, required, e.g. Lisbon: City name>",
          },
          { name: "Premium Report", resource: "http://127.0.0.1:4022/report", price: "5", x402Version: 2 },
        ],
      },
    },
    payment("quoted", quote),
    payment("signing"),
    payment("verifying"),
    payment("settling"),
    payment("confirmed", { txHash: TX_HASH }),
    payment("delivered"),
    { type: "error", error: { code: "service_warning", message: "The service answered slowly." } },
    ...textEvents(ANSWER),
    finishEvent({
      finishReason: "payment-complete",
      txHash: TX_HASH,
      payments: [{ id: "pay_weather_1", status: "delivered", txHash: TX_HASH, amount: "0.01", service: "Weather Now" }],
    }),
  ]);
  if (options.pauseAfterFirstSentence) {
    // The stream pauses after its first sentence until the test has seen it on screen.
    const firstAfterText = textEvents("Let me find a weather service. ").length;
    script.chunks[firstAfterText] = { ...script.chunks[firstAfterText]!, gate: true };
  }
  return script;
}

/** Sums Chromium's layout-shift entries (not caused by input), as Cumulative Layout Shift does. */
async function recordLayoutShifts(page: Page): Promise<void> {
  await page.addInitScript(() => {
    const state = window as unknown as { __layoutShift: number };
    state.__layoutShift = 0;
    new PerformanceObserver((list) => {
      for (const entry of list.getEntries() as (PerformanceEntry & { value: number; hadRecentInput: boolean })[]) {
        if (!entry.hadRecentInput) state.__layoutShift += entry.value;
      }
    }).observe({ type: "layout-shift", buffered: true });
  });
}

function layoutShiftScore(page: Page): Promise<number> {
  return page.evaluate(() => (window as unknown as { __layoutShift: number }).__layoutShift);
}

describe("chat page rendering (scripted streams)", () => {
  it("renders text progressively, discovery, a payment through its stages, errors and the outcome", async () => {
    const { page, context, errors } = await openPage(browser);
    try {
      await installFakeChat(page, [agentPurchaseScript({ pauseAfterFirstSentence: true })]);
      await recordLayoutShifts(page);
      await gotoChat(page, baseUrl);
      await sendMessage(page, "What's the weather in Lisbon?");

      // Partial text is on screen while the request still runs.
      await expect.poll(() => page.getByTestId("assistant-text").first().innerText()).toContain("Let me");
      expect(await page.getByTestId("stop-button").isVisible()).toBe(true);
      await openChatGate(page);

      await waitForIdle(page);
      const card = page.getByTestId("payment-card");
      await expect.poll(() => card.getAttribute("data-status")).toBe("delivered");
      expect(await card.getByTestId("tx-hash").getAttribute("data-tx-hash")).toBe(TX_HASH);
      // The local chain has no explorer: the hash is shown in full, not linked.
      expect(await card.getByTestId("tx-hash").evaluate((element) => element.tagName)).toBe("CODE");
      expect(await card.getByTestId("payment-amount").innerText()).toBe("0.01 USDC");

      expect(await page.getByTestId("discovery-card").getAttribute("data-status")).toBe("discovered");
      expect(await page.getByTestId("discovered-service").count()).toBe(2);
      // How to call a service is shown as text, only where the service declared it.
      expect(await page.getByTestId("service-usage").allInnerTexts()).toEqual(["GET ?city=<string, required, e.g. Lisbon: City name>"]);
      expect(await page.getByTestId("stream-error").innerText()).toContain("The service answered slowly.");
      expect(await page.getByTestId("finish-reason").getAttribute("data-reason")).toBe("payment-complete");

      // Safe Markdown: bold and http(s) links render; javascript: links and raw HTML do not.
      const answer = page.getByTestId("assistant-text").last();
      expect(await answer.locator("strong").first().innerText()).toBe("weather in Lisbon");
      const links = answer.locator("a");
      expect(await links.count()).toBe(1);
      expect(await links.first().getAttribute("href")).toBe("https://weather.example/lisbon");
      expect(await links.first().getAttribute("rel")).toContain("noopener");
      expect(await answer.locator("img").count()).toBe(0);
      expect(await answer.innerText()).toContain("<img src=x onerror=alert(1)>");

      // The receipt is kept, and counted in the last 24 h.
      expect(await page.getByTestId("receipt").count()).toBe(1);
      expect(await page.getByTestId("spent-today").innerText()).toContain("0.01 USDC");
      await screenshot(page, "rendering-agent-purchase");

      // The request carried the conversation and no wallet (agent wallet).
      const [request] = await recordedRequests(page);
      const body = JSON.parse(request?.body ?? "{}") as { messages: unknown[]; walletAddress?: string };
      expect(body.messages).toEqual([{ role: "user", content: "What's the weather in Lisbon?" }]);
      expect(body.walletAddress).toBeUndefined();
      expect(errors).toEqual([]);
      // Streaming text and cards grow the conversation downwards without shifting what is shown.
      expect(await layoutShiftScore(page)).toBeLessThan(0.1);

      // Receipts survive a reload (localStorage).
      await page.reload();
      await page.getByTestId("chat-input").waitFor();
      expect(await page.getByTestId("receipt").count()).toBe(1);
    } finally {
      await context.close();
    }
  });

  it("signs an approval with the local demo wallet and repeats the same body with PAYMENT-SIGNATURE", async () => {
    const { page, context } = await openPage(browser);
    try {
      const approval = approvalFor(userAddress);
      await installFakeChat(page, [
        streamResponse([
          ...textEvents("This costs 0.01 USDC. Approve it to continue."),
          payment("quoted", quote),
          payment("awaiting-approval", { ...quote, approval }),
          finishEvent({
            finishReason: "stop",
            txHash: null,
            payments: [{ id: "pay_weather_1", status: "awaiting-approval", txHash: null }],
            pendingApproval: { id: "pay_weather_1", approval },
          }),
        ]),
        streamResponse([
          payment("signing"),
          payment("verifying"),
          payment("settling"),
          payment("confirmed", { txHash: TX_HASH }),
          payment("delivered"),
          ...textEvents("Lisbon: 21 °C and sunny."),
          finishEvent({ finishReason: "payment-complete", txHash: TX_HASH, payments: [{ id: "pay_weather_1", status: "delivered", txHash: TX_HASH }] }),
        ]),
      ]);
      await gotoChat(page, baseUrl);
      await page.getByTestId("connect-local-wallet").click();
      await page.getByTestId("wallet-balance").waitFor();
      await page.getByTestId("payer-wallet").click();
      await sendMessage(page, "What's the weather in Lisbon?");

      const approvalCard = page.getByTestId("approval-card");
      await approvalCard.waitFor();
      await waitForIdle(page);
      expect(await page.getByTestId("approval-amount").innerText()).toBe("0.01 USDC");
      expect(await page.getByTestId("approval-expiry").innerText()).toMatch(/^in [45]:\d\d$/);
      expect(await page.getByTestId("finish-reason").getAttribute("data-reason")).toBe("stop");
      await screenshot(page, "rendering-approval-card");

      await page.getByTestId("approve-button").click();
      await expect.poll(() => page.getByTestId("payment-card").getAttribute("data-status"), { timeout: 20_000 }).toBe("delivered");
      await waitForIdle(page);
      expect(await approvalCard.getAttribute("data-decision")).toBe("approved");

      const [first, second] = await recordedRequests(page);
      expect(second?.body).toBe(first?.body);
      expect(JSON.parse(first?.body ?? "{}").walletAddress).toBe(userAddress);
      expect(first?.headers["payment-signature"]).toBeUndefined();
      const header = second?.headers["payment-signature"];
      const decoded = decodePaymentSignatureHeader(header ?? "");
      expect(decoded?.payload.authorization).toEqual(approval.typedData.message);
      // The local node signed for the demo user: the signature recovers to that address.
      const typedData = approval.typedData as TransferAuthorizationTypedData;
      const recovered = await recoverTypedDataAddress({
        domain: { ...typedData.domain, verifyingContract: usdc },
        types: typedData.types,
        primaryType: "TransferWithAuthorization",
        message: {
          ...typedData.message,
          value: 10000n,
          validAfter: BigInt(typedData.message.validAfter),
          validBefore: BigInt(typedData.message.validBefore),
        },
        signature: decoded?.payload.signature as `0x${string}`,
      });
      expect(recovered.toLowerCase()).toBe(userAddress.toLowerCase());
      await screenshot(page, "rendering-approval-confirmed");
    } finally {
      await context.close();
    }
  });

  it("Reject signs nothing and tells the agent in a follow-up message", async () => {
    const { page, context } = await openPage(browser);
    try {
      const approval = approvalFor(userAddress);
      await installFakeChat(page, [
        streamResponse([
          payment("awaiting-approval", { ...quote, approval }),
          finishEvent({ finishReason: "stop", txHash: null, payments: [], pendingApproval: { id: "pay_weather_1", approval } }),
        ]),
        streamResponse([...textEvents("Understood, nothing was paid."), finishEvent({ finishReason: "stop", txHash: null, payments: [] })]),
      ]);
      await gotoChat(page, baseUrl);
      await page.getByTestId("connect-local-wallet").click();
      await page.getByTestId("payer-wallet").click();
      await sendMessage(page, "What's the weather in Lisbon?");
      await page.getByTestId("reject-button").click();
      await expect.poll(() => page.getByTestId("assistant-text").last().innerText()).toContain("nothing was paid");
      const [, followUp] = await recordedRequests(page);
      expect(followUp?.headers["payment-signature"]).toBeUndefined();
      const body = JSON.parse(followUp?.body ?? "{}") as { messages: { role: string; content: string }[] };
      expect(body.messages.at(-1)).toEqual({ role: "user", content: "I declined the payment of 0.01 USDC to Weather Now." });
      expect(await page.getByTestId("approval-card").getAttribute("data-decision")).toBe("rejected");
      // Nothing still asks: the card, its badge and the first turn's outcome say it was declined.
      const card = page.getByTestId("payment-card");
      expect(await card.getByTestId("payment-status").innerText()).toBe("Declined");
      expect(await card.innerText()).not.toMatch(/Approve payment|Approve 0|in your wallet/);
      expect(await page.getByTestId("finish-reason").first().innerText()).toBe("You declined the payment of 0.01 USDC: nothing was paid.");
      await screenshot(page, "rendering-rejected");
    } finally {
      await context.close();
    }
  });

  it("shows the cooldown from Retry-After after a 429 and re-enables sending at 0", async () => {
    const { page, context } = await openPage(browser);
    try {
      await installFakeChat(page, [
        problemResponse(429, "Too many requests. Wait for the cooldown, then try again.", { "Retry-After": "3" }),
        streamResponse([...textEvents("Hello again."), finishEvent({ finishReason: "stop", txHash: null, payments: [] })]),
      ]);
      await gotoChat(page, baseUrl);
      await sendMessage(page, "hello");
      const cooldown = page.getByTestId("cooldown");
      await cooldown.waitFor();
      const seconds = Number(await cooldown.getAttribute("data-seconds"));
      expect(seconds).toBeGreaterThanOrEqual(2);
      expect(seconds).toBeLessThanOrEqual(3);
      expect(await page.getByTestId("send-button").isDisabled()).toBe(true);
      // The refused message is back in the box, ready to send again.
      expect(await page.getByTestId("chat-input").inputValue()).toBe("hello");
      await screenshot(page, "rendering-cooldown");

      await cooldown.waitFor({ state: "detached", timeout: 6_000 });
      expect(await page.getByTestId("send-button").isEnabled()).toBe(true);
      await page.getByTestId("chat-input").press("Enter");
      await expect.poll(() => page.getByTestId("assistant-text").last().innerText()).toContain("Hello again.");
    } finally {
      await context.close();
    }
  });

  it("Stop says a payment was already confirmed, with its transaction", async () => {
    const { page, context } = await openPage(browser);
    try {
      await installFakeChat(page, [
        streamResponse([payment("quoted", quote), payment("settling"), payment("confirmed", { txHash: TX_HASH }), ...textEvents("Lisbon is ")], {
          holdOpen: true,
        }),
      ]);
      await gotoChat(page, baseUrl);
      await sendMessage(page, "What's the weather in Lisbon?");
      await expect.poll(() => page.getByTestId("payment-card").getAttribute("data-status")).toBe("confirmed");
      await page.getByTestId("stop-button").click();
      const note = page.getByTestId("stop-note");
      await note.waitFor();
      expect(await note.innerText()).toMatch(/already confirmed: tx 0xab12ab12…ab12ab12\./);
      await waitForIdle(page);
      expect(await page.getByTestId("receipt").count()).toBe(1);
      await screenshot(page, "rendering-stopped-after-payment");
    } finally {
      await context.close();
    }
  });

  it("Stop before anything was paid says so", async () => {
    const { page, context } = await openPage(browser);
    try {
      await installFakeChat(page, [{ ...streamResponse([]), delayHeadersMs: 60_000 }]);
      await gotoChat(page, baseUrl);
      await sendMessage(page, "What's the weather in Lisbon?");
      await page.getByTestId("stop-button").click();
      expect(await page.getByTestId("stop-note").innerText()).toContain("Stopped before any payment was signed");
      await waitForIdle(page);
      await screenshot(page, "rendering-stopped-before-payment");
    } finally {
      await context.close();
    }
  });

  it("validates the spending limits with the server's schema, sends them and keeps them", async () => {
    const { page, context } = await openPage(browser);
    try {
      await installFakeChat(page, [streamResponse([...textEvents("ok"), finishEvent({ finishReason: "stop", txHash: null, payments: [] })])]);
      await gotoChat(page, baseUrl);
      await page.getByTestId("chat-input").fill("hello");
      await page.getByTestId("limit-per-payment").fill("0.1234567");
      expect(await page.getByTestId("send-button").isDisabled()).toBe(true);
      expect(await page.getByTestId("limit-per-payment").getAttribute("aria-invalid")).toBe("true");
      await screenshot(page, "rendering-limits-invalid");

      await page.getByTestId("limit-per-payment").fill("0.25");
      await page.getByTestId("limit-per-request").fill("1");
      await page.getByTestId("limit-daily").fill("3.5");
      await page.getByTestId("chat-input").press("Enter");
      await waitForIdle(page);
      const [request] = await recordedRequests(page);
      expect(JSON.parse(request?.body ?? "{}").spendingLimits).toEqual({ perPayment: "0.25", perRequest: "1", daily: "3.5" });

      await page.reload();
      await page.getByTestId("chat-input").waitFor();
      expect(await page.getByTestId("limit-daily").inputValue()).toBe("3.5");
    } finally {
      await context.close();
    }
  });

  it("works on a phone: chat first, wallet and limits behind one button", async () => {
    const { page, context } = await openPage(browser, { viewport: PHONE });
    try {
      await installFakeChat(page, [agentPurchaseScript()]);
      await gotoChat(page, baseUrl);
      await sendMessage(page, "What's the weather in Lisbon?");
      await waitForIdle(page);
      const width = await page.evaluate(() => document.documentElement.scrollWidth);
      expect(width).toBeLessThanOrEqual(PHONE.width);
      await screenshot(page, "rendering-phone-chat");
      await page.getByRole("button", { name: "Wallet & limits" }).click();
      await page.getByTestId("limit-per-payment").waitFor();
      // The header has no room for the history link on a phone; the panel carries it.
      expect(await page.getByTestId("history-link").isVisible()).toBe(false);
      await page.getByTestId("panel-history-link").scrollIntoViewIfNeeded();
      expect(await page.getByTestId("panel-history-link").isVisible()).toBe(true);
      expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(PHONE.width);
      await screenshot(page, "rendering-phone-panel");

      // The history page fits a phone too, with its way back to the chat in view.
      await page.getByTestId("panel-history-link").click();
      await page.waitForURL(`${baseUrl}/payments`);
      await page.getByTestId("history-locked").waitFor();
      expect(await page.getByTestId("chat-link").isVisible()).toBe(true);
      expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(PHONE.width);
      await screenshot(page, "rendering-phone-history");
    } finally {
      await context.close();
    }
  });

  it("keeps the desktop layout steady", async () => {
    const { page, context } = await openPage(browser, { viewport: DESKTOP });
    try {
      await gotoChat(page, baseUrl);
      await screenshot(page, "rendering-desktop-empty");
    } finally {
      await context.close();
    }
  });
});

describe("security headers of the built server", () => {
  it("forbids framing and sniffing, and sends no referrer, on the pages and the API", async () => {
    for (const pathname of ["/", "/payments", "/api/network", "/api/payments"]) {
      const response = await fetch(`${baseUrl}${pathname}`, { redirect: "manual" });
      await response.body?.cancel();
      expect(response.status, pathname).toBeLessThan(500);
      expect(response.headers.get("content-security-policy"), pathname).toBe("frame-ancestors 'none'");
      expect(response.headers.get("x-frame-options"), pathname).toBe("DENY");
      expect(response.headers.get("x-content-type-options"), pathname).toBe("nosniff");
      expect(response.headers.get("referrer-policy"), pathname).toBe("no-referrer");
    }
  });
});
