/**
 * The history page, end to end: the demo user pays from their own wallet in the chat, then
 * signs in on /payments with the same wallet (Sign-In with Ethereum; the local node signs) and
 * sees that payment and the server's daily total. In the same signed-in session another
 * wallet's history is refused (403), the CSV download holds the same rows as the JSON API, the
 * operator's token reads the same history, and signing out closes it again.
 */
import { readFile } from "node:fs/promises";
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { parseUsdc } from "../../lib/money";
import type { PaymentView } from "../../lib/payments/payment-view";
import { PAYMENT_CSV_FIELDS, paymentCsvRow } from "../../lib/payments/payments-csv";
import { parseCsv } from "../support/parse-csv";
import { gotoChat, launchBrowser, openPage, screenshot, sendMessage, waitForIdle } from "./support/browser";
import "./support/context";

const { baseUrl, userAddress, agentAddress, adminToken } = inject("e2e");
let browser: Browser;

type History = {
  payer: string;
  payments: Record<string, string | null>[];
  nextCursor: string | null;
  daily: { spent: string; reserved: string; limit: string };
};

beforeAll(async () => {
  browser = await launchBrowser();
});

afterAll(async () => {
  await browser?.close();
});

describe("payment history (local demo wallet)", () => {
  it("shows the signed-in wallet its own payments and the server's daily total, and nobody else's", async () => {
    const { page, context, errors } = await openPage(browser);
    try {
      // 1. A payment from the demo user's wallet, approved in the chat.
      await gotoChat(page, baseUrl);
      await page.getByTestId("connect-local-wallet").click();
      await page.getByTestId("wallet-connected").waitFor();
      await page.getByTestId("payer-wallet").click();
      await sendMessage(page, "What's the weather in Lisbon?");
      await page.getByTestId("approval-card").waitFor({ timeout: 45_000 });
      await waitForIdle(page);
      const quoted = parseUsdc((await page.getByTestId("approval-amount").innerText()).replace(/\s*USDC$/, ""));
      if (quoted === undefined) throw new Error("unreadable quoted amount");
      await page.getByTestId("approve-button").click();
      const card = page.getByTestId("payment-card").first();
      await expect.poll(() => card.getAttribute("data-status"), { timeout: 45_000 }).toMatch(/^(confirmed|delivered)$/);
      await waitForIdle(page);
      const txHash = await card.getByTestId("tx-hash").getAttribute("data-tx-hash");
      expect(txHash).toMatch(/^0x[0-9a-fA-F]{64}$/);

      // 2. The history page, reached from the chat's header; locked until the wallet signs in.
      await page.getByTestId("history-link").click();
      await page.waitForURL(`${baseUrl}/payments`);
      await page.getByTestId("history-locked").waitFor();
      expect(await page.evaluate(async () => (await fetch("/api/payments")).status)).toBe(401);
      if (await page.getByTestId("wallet-disconnected").isVisible()) await page.getByTestId("connect-local-wallet").click();
      await page.getByTestId("wallet-connected").waitFor();
      await page.getByTestId("sign-in").click();
      expect(await page.getByTestId("signed-in").getAttribute("data-address")).toBe(userAddress);

      // 3. The payment, as the server recorded it, and the server's count for the last 24 h.
      const row = page.locator(`[data-testid="payment-row"][data-tx-hash="${txHash}"]`);
      await row.waitFor();
      expect(await row.getAttribute("data-status")).toMatch(/^(confirmed|delivered)$/);
      expect(await row.getByTestId("payment-amount").innerText()).toBe(`${Number(quoted) / 1e6} USDC`);
      const api = await page.evaluate(async () => {
        const response = await fetch("/api/payments");
        return { status: response.status, body: (await response.json()) as unknown };
      });
      expect(api.status).toBe(200);
      const history = api.body as History;
      expect(history.payer).toBe(userAddress);
      expect(history.payments.some((payment) => payment.txHash === txHash && payment.amount === `${Number(quoted) / 1e6}`)).toBe(true);
      // Other tests of the run may have paid from the same wallet: at least this payment is counted.
      expect(parseUsdc(history.daily.spent)).toBeGreaterThanOrEqual(quoted);
      const daily = page.getByTestId("daily-spent");
      expect(await daily.getAttribute("data-spent")).toBe(history.daily.spent);
      expect(await daily.getAttribute("data-limit")).toBe(history.daily.limit);
      expect(await daily.innerText()).toContain(`Spent in the last 24 h: ${history.daily.spent} of ${history.daily.limit} USDC (as the server counts it)`);
      await screenshot(page, "payment-history");

      // 4. Another wallet's history in the same signed-in session: 403 problem.
      const foreign = await page.evaluate(async (payer) => {
        const response = await fetch(`/api/payments?payer=${payer}`);
        return { status: response.status, type: response.headers.get("content-type"), body: (await response.json()) as { code?: string } };
      }, agentAddress);
      expect(foreign).toMatchObject({ status: 403, type: "application/problem+json", body: { code: "forbidden:not_your_wallet" } });

      // 5. The CSV download holds the JSON API's rows, field for field.
      const [download] = await Promise.all([page.waitForEvent("download"), page.getByTestId("download-csv").click()]);
      expect(download.suggestedFilename()).toMatch(new RegExp(`^payments-${userAddress.toLowerCase()}-\\d{4}-\\d{2}-\\d{2}\\.csv$`));
      const [header, ...rows] = parseCsv(await readFile(await download.path(), "utf8"));
      expect(header).toEqual([...PAYMENT_CSV_FIELDS]);
      expect(rows).toEqual(history.payments.map((payment) => paymentCsvRow(payment as unknown as PaymentView).map((cell) => cell ?? "")));

      // 6. The operator's token reads the same wallet; no credential reads nothing.
      const operator = await fetch(`${baseUrl}/api/payments?payer=${userAddress}`, { headers: { authorization: `Bearer ${adminToken}` } });
      expect(operator.status).toBe(200);
      expect(((await operator.json()) as History).payments.map((payment) => payment.id)).toEqual(history.payments.map((payment) => payment.id));
      const anonymous = await fetch(`${baseUrl}/api/payments?payer=${userAddress}`);
      expect(anonymous.status).toBe(401);
      expect(anonymous.headers.get("www-authenticate")).toMatch(/SIWE/);

      // 7. Signing out closes the history again.
      await page.getByTestId("sign-out").click();
      await page.getByTestId("history-locked").waitFor();
      expect(await page.evaluate(async () => (await fetch("/api/payments")).status)).toBe(401);
      // The browser logs the refusals this test asks for (401, 403); anything else is a fault.
      expect(errors.filter((error) => !/status of (401|403)/.test(error))).toEqual([]);
    } finally {
      await context.close();
    }
  });
});
