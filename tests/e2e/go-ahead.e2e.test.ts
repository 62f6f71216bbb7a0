/**
 * The chat page's two newer decisions, against scripted streams: the go-ahead for a call the
 * agent wallet would pay to an address of unknown origin (no wallet involved: the page sends
 * the token back in PAYMENT-APPROVAL), and "Already paid? Sign in instead" beside a wallet
 * approval (the local demo wallet signs the service's sign-in-with-x message, and the page
 * sends it in SIGN-IN-WITH-X). The page, /api/network, the local chain and the demo wallet's
 * signing are real.
 */
import { verifyMessage } from "viem";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import type { AgentConfirmation, SignInRequest, StreamEvent } from "../../lib/stream";
import { approvalFixture, quoteFor } from "./support/approval-fixture";
import { gotoChat, launchBrowser, openPage, screenshot, sendMessage, waitForIdle } from "./support/browser";
import "./support/context";
import { finishEvent, installFakeChat, recordedRequests, streamResponse, textEvents } from "./support/fake-chat";
import type { Browser } from "playwright-core";

const { baseUrl, usdc, userAddress, chainId } = inject("e2e");
const TX_HASH = `0x${"cd34".repeat(16)}` as const;

let browser: Browser;

beforeAll(async () => {
  browser = await launchBrowser();
});

afterAll(async () => {
  await browser?.close();
});

const delivered = (id: string): StreamEvent[] => [
  { type: "payment", payment: { id, status: "confirmed", txHash: TX_HASH } },
  { type: "payment", payment: { id, status: "delivered" } },
  ...textEvents("Here it is."),
  finishEvent({ finishReason: "payment-complete", txHash: TX_HASH, payments: [{ id, status: "delivered", txHash: TX_HASH }] }),
];

describe("decisions the page asks of the person", () => {
  it("lets the agent wallet call an address of unknown origin only after the go-ahead, sending the token back", async () => {
    const { page, context } = await openPage(browser);
    try {
      const confirmation: AgentConfirmation = {
        token: "eyJ2IjoxfQ.c2lnbmF0dXJl",
        method: "POST",
        resource: "https://api.example.com/v1/translate",
        maxAmount: "1",
        expiresAt: Math.floor(Date.now() / 1000) + 300,
      };
      await installFakeChat(page, [
        streamResponse([
          { type: "payment", payment: { id: "ask_1", status: "awaiting-approval", service: "api.example.com", resource: confirmation.resource, confirmation } },
          ...textEvents("That address came from a service's answer; approve it to continue."),
          finishEvent({ finishReason: "stop", txHash: null, payments: [] }),
        ]),
        streamResponse(delivered("pay_translate_1")),
      ]);
      await gotoChat(page, baseUrl);
      await sendMessage(page, "Translate good morning into French");

      const card = page.getByTestId("confirm-card");
      await card.waitFor();
      await waitForIdle(page);
      expect(await card.innerText()).toContain("at most 1 USDC");
      await screenshot(page, "go-ahead-card");
      await page.getByTestId("confirm-button").click();
      await expect.poll(async () => (await recordedRequests(page)).length, { timeout: 20_000 }).toBe(2);
      await waitForIdle(page);

      const [first, second] = await recordedRequests(page);
      expect(first?.headers["payment-approval"]).toBeUndefined();
      expect(second?.headers["payment-approval"]).toBe(confirmation.token);
      // The same request again, unchanged: the token is bound to it.
      expect(second?.body).toBe(first?.body);
      expect(await card.innerText()).toContain("Approved.");
    } finally {
      await context.close();
    }
  });

  it("once approved, the ask is gone; a refused payment counts down to its expiry, then shows how it ended", async () => {
    const { page, context, errors } = await openPage(browser);
    try {
      const approval = approvalFixture({ from: userAddress, usdc, chainId });
      const id = "pay_weather_refused";
      const expiresAt = Math.floor(Date.now() / 1000) + 45;
      const refused = "Weather Now refused the payment at verification: it says the signature is invalid (invalid_exact_evm_signature).";
      const second = streamResponse([
        { type: "payment", payment: { id, status: "verifying" } },
        {
          type: "payment",
          payment: {
            id,
            status: "pending",
            expiresAt,
            message: `${refused} Your signature stays usable until then and nothing can be spent with it after that.`,
          },
        },
        {
          type: "payment",
          payment: { id, status: "failed", reason: "payment-failed", message: `${refused} The authorization expired unused, so nothing was spent.` },
        },
        ...textEvents("The payment did not go through; nothing was spent."),
        finishEvent({ finishReason: "payment-failed", txHash: null, payments: [{ id, status: "failed", txHash: null, reason: "payment-failed" }] }),
      ]);
      // The wait on the chain: long enough to watch the countdown tick.
      second.chunks[2]!.delayMs = 4_000;
      await installFakeChat(page, [
        streamResponse([
          {
            type: "payment",
            payment: { id, status: "awaiting-approval", ...quoteFor(chainId), approval, message: "Approve 0.01 USDC to Weather Now in your wallet." },
          },
          ...textEvents("\n\nApprove the payment of 0.01 USDC in your wallet to continue; it expires in a few minutes."),
          finishEvent({ finishReason: "stop", txHash: null, payments: [], pendingApproval: { id, approval } }),
        ]),
        second,
      ]);
      await gotoChat(page, baseUrl);
      await page.getByTestId("connect-local-wallet").click();
      await page.getByTestId("wallet-balance").waitFor();
      await page.getByTestId("payer-wallet").click();
      await sendMessage(page, "What's the weather in Lisbon?");
      await page.getByTestId("approve-button").waitFor();
      await waitForIdle(page);
      const answerText = async () => (await page.getByTestId("assistant-text").allInnerTexts()).join("\n");
      expect(await answerText()).toContain("to continue");
      expect(await page.getByTestId("finish-reason").innerText()).toBe("Waiting for your approval of 0.01 USDC.");

      await page.getByTestId("approve-button").click();
      const card = page.getByTestId("payment-card");
      await expect.poll(() => card.getAttribute("data-status"), { timeout: 20_000 }).toBe("pending");
      // Nothing above the answer still asks: not the text, not the card.
      expect(await answerText()).not.toMatch(/Approve|to continue/);
      expect(await card.innerText()).not.toContain("in your wallet");
      expect(await page.getByTestId("finish-reason").count()).toBe(0);
      const expiry = page.getByTestId("payment-expiry");
      const first = await expiry.innerText();
      expect(first).toMatch(/^Signature expires in (4\d|3\d) s$/);
      expect(await card.innerText()).toContain("refused the payment at verification: it says the signature is invalid");
      await screenshot(page, "refused-payment-countdown");
      await expect.poll(() => expiry.innerText(), { timeout: 5_000 }).not.toBe(first);

      await expect.poll(() => card.getAttribute("data-status"), { timeout: 20_000 }).toBe("failed");
      await waitForIdle(page);
      expect(await expiry.count()).toBe(0);
      expect(await card.innerText()).toContain("expired unused, so nothing was spent");
      const decided = page.getByTestId("approval-card");
      expect(await decided.getAttribute("data-decision")).toBe("approved");
      expect(await decided.innerText()).toMatch(/^You approved 0\.01 USDC to Weather Now; the payment did not complete/);
      expect(await answerText()).not.toMatch(/Approve|to continue/);
      expect(await answerText()).toContain("nothing was spent");
      expect(await page.getByTestId("finish-reason").innerText()).toBe("The payment failed.");
      expect(errors).toEqual([]);
      await screenshot(page, "refused-payment-ended");
    } finally {
      await context.close();
    }
  });

  it("signs the service's sign-in message with the wallet instead of paying again, and sends it bound to the quote", async () => {
    const { page, context } = await openPage(browser);
    try {
      const approval = approvalFixture({ from: userAddress, usdc, chainId });
      const issuedAt = new Date().toISOString();
      const signIn: SignInRequest = {
        message: `127.0.0.1:4021 wants you to sign in with your Ethereum account:\n${userAddress}\n\nURI: http://127.0.0.1:4021/weather\nVersion: 1\nChain ID: ${chainId}\nNonce: abcdef0123456789\nIssued At: ${issuedAt}`,
        challenge: {
          domain: "127.0.0.1:4021",
          uri: "http://127.0.0.1:4021/weather",
          version: "1",
          nonce: "abcdef0123456789",
          issuedAt,
          chainId: `eip155:${chainId}`,
          type: "eip191",
        },
        expiresAt: Math.floor(Date.now() / 1000) + 300,
        binding: "ab".repeat(32),
      };
      await installFakeChat(page, [
        streamResponse([
          { type: "payment", payment: { id: "pay_weather_1", status: "awaiting-approval", ...quoteFor(chainId), approval, signIn } },
          finishEvent({ finishReason: "stop", txHash: null, payments: [], pendingApproval: { id: "pay_weather_1", approval } }),
        ]),
        streamResponse([
          { type: "payment", payment: { id: "pay_weather_1", status: "delivered", access: "sign-in-with-x" } },
          ...textEvents("Served again."),
          finishEvent({ finishReason: "stop", txHash: null, payments: [] }),
        ]),
      ]);
      await gotoChat(page, baseUrl);
      await page.getByTestId("connect-local-wallet").click();
      await page.getByTestId("wallet-balance").waitFor();
      await page.getByTestId("payer-wallet").click();
      await sendMessage(page, "What's the weather in Lisbon?");

      await page.getByTestId("sign-in-instead").waitFor();
      await waitForIdle(page);
      await screenshot(page, "sign-in-instead");
      await page.getByTestId("sign-in-instead").click();
      await expect.poll(async () => (await recordedRequests(page)).length, { timeout: 20_000 }).toBe(2);

      const [first, second] = await recordedRequests(page);
      expect(second?.body).toBe(first?.body);
      expect(second?.headers["payment-signature"]).toBeUndefined();
      const header = JSON.parse(Buffer.from(second?.headers["sign-in-with-x"] ?? "", "base64").toString("utf8")) as {
        challenge: unknown;
        address: string;
        signature: `0x${string}`;
        request: { url: string; method: string };
        binding: string;
      };
      expect(header).toMatchObject({
        challenge: signIn.challenge,
        address: userAddress,
        request: { url: approval.resource, method: "GET" },
        binding: signIn.binding,
      });
      // The demo wallet signed exactly the service's message: a signature, not a payment.
      expect(await verifyMessage({ address: userAddress as `0x${string}`, message: signIn.message, signature: header.signature })).toBe(true);
    } finally {
      await context.close();
    }
  });
});
