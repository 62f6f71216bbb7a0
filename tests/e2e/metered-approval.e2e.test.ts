/**
 * A metered (`upto`) approval in the page, against a scripted stream: the card says "up to" the
 * ceiling and the unit price, offers the Permit2 approve when the server said the allowance was
 * short (sent by the local demo wallet through the node) for exactly the ceiling unless the
 * person types more, then has the wallet sign the Permit2 permit, and afterwards says what was
 * actually taken. The page, the chain and the demo wallet's transaction and signing are real.
 */
import { createWalletClient, erc20Abi, http, maxUint256, recoverTypedDataAddress } from "viem";
import type { Page } from "playwright-core";
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { ApprovalRequest, type PaymentEvent, type StreamEvent } from "../../lib/stream";
import { walletTypedDataOf } from "../../lib/x402/approval-typed-data";
import { decodePaymentSignatureHeader } from "../../lib/x402/payment-signature-header";
import { buildUptoTypedData, PERMIT2 } from "../../lib/x402/upto-permit2";
import { gotoChat, launchBrowser, openPage, screenshot, sendMessage, usdcReader, waitForIdle } from "./support/browser";
import { PAY_TO } from "./support/approval-fixture";
import "./support/context";
import { finishEvent, installFakeChat, recordedRequests, streamResponse, textEvents } from "./support/fake-chat";

const { baseUrl, usdc, userAddress, chainId, rpcUrl } = inject("e2e");
const CEILING = 100_000n; // 0.1 USDC, the quote below
const TX_HASH = `0x${"cd34".repeat(16)}` as const;
const RESOURCE = "http://127.0.0.1:4021/metered/data/rows?rows=3";
const quote = { service: "Row meter", resource: RESOURCE, amount: "0.1", ceiling: "0.1", payTo: PAY_TO, network: `eip155:${chainId}` };

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
  return usdcReader(rpcUrl, usdc).client.readContract({ address: usdc, abi: erc20Abi, functionName: "allowance", args: [userAddress, PERMIT2] });
}

/** Sets the demo user's Permit2 allowance through the node (which holds the demo user's key, as the page's demo wallet uses it). */
async function setPermit2Allowance(amount: bigint): Promise<void> {
  const wallet = createWalletClient({ account: userAddress, transport: http(rpcUrl) });
  const hash = await wallet.writeContract({ chain: null, address: usdc, abi: erc20Abi, functionName: "approve", args: [PERMIT2, amount] });
  await usdcReader(rpcUrl, usdc).client.waitForTransactionReceipt({ hash });
}

/** Connects the demo wallet, chooses it as payer and asks: the metered approval card opens. */
async function openMeteredCard(page: Page): Promise<void> {
  await gotoChat(page, baseUrl);
  await page.getByTestId("connect-local-wallet").click();
  await page.getByTestId("wallet-balance").waitFor();
  await page.getByTestId("payer-wallet").click();
  await sendMessage(page, "Three rows of sales, please.");
  await page.getByTestId("approval-card").waitFor();
  await waitForIdle(page);
}

function payment(status: PaymentEvent["status"], fields: Partial<PaymentEvent> = {}): StreamEvent {
  return { type: "payment", payment: { id: "pay_rows_1", status, ...fields } };
}

function meteredApproval(): ApprovalRequest {
  const now = Math.floor(Date.now() / 1000);
  const network = `eip155:${chainId}`;
  const requirements = {
    scheme: "upto",
    network,
    amount: "100000",
    asset: usdc,
    payTo: PAY_TO,
    maxTimeoutSeconds: 120,
    extra: { name: "USD Coin", version: "2", facilitatorAddress: PAY_TO },
  };
  const option = {
    x402Version: 2 as const,
    requirements,
    amount: 100_000n,
    asset: usdc,
    payTo: PAY_TO as `0x${string}`,
    network,
    maxTimeoutSeconds: 120,
    domain: { name: "USD Coin", version: "2" },
    upto: { facilitator: PAY_TO as `0x${string}` },
  };
  const typedData = buildUptoTypedData(option, chainId, { validAfter: BigInt(now - 60), deadline: BigInt(now + 300), nonce: `0x${"6b".repeat(32)}` });
  return ApprovalRequest.parse({
    method: "GET",
    resource: RESOURCE,
    amount: "0.1",
    asset: usdc,
    network,
    payTo: PAY_TO,
    expiresAt: now + 300,
    x402Version: 2,
    scheme: "upto",
    requirements,
    typedData,
    payer: userAddress,
    ceiling: "0.1",
    metering: { unitPrice: "0.0005", unit: "row" },
    permit2Approval: { spender: PERMIT2, token: usdc, amount: "0.1" },
  });
}

describe("a metered approval with my wallet (scripted stream)", () => {
  it("shows up to the ceiling, approves Permit2 for exactly the ceiling, signs the permit, then shows what was taken", async () => {
    const { page, context } = await openPage(browser);
    try {
      // Short of the ceiling, as when the server asks for the approve.
      await setPermit2Allowance(0n);
      const approval = meteredApproval();
      await installFakeChat(page, [
        streamResponse([
          payment("quoted", quote),
          payment("awaiting-approval", { ...quote, approval }),
          finishEvent({
            finishReason: "stop",
            txHash: null,
            payments: [{ id: "pay_rows_1", status: "awaiting-approval", txHash: null }],
            pendingApproval: { id: "pay_rows_1", approval },
          }),
        ]),
        streamResponse([
          payment("verifying"),
          payment("confirmed", { txHash: TX_HASH, amount: "0.0015", ceiling: "0.1" }),
          payment("delivered", { amount: "0.0015", ceiling: "0.1" }),
          ...textEvents("Three rows of sales."),
          finishEvent({
            finishReason: "payment-complete",
            txHash: TX_HASH,
            payments: [{ id: "pay_rows_1", status: "delivered", txHash: TX_HASH, amount: "0.0015", ceiling: "0.1" }],
          }),
        ]),
      ]);
      await openMeteredCard(page);
      const card = page.getByTestId("approval-card");
      expect(await page.getByTestId("approval-amount").innerText()).toBe("up to 0.1 USDC");
      expect(await page.getByTestId("approval-unit-price").innerText()).toBe("0.0005 USDC per row");
      expect(await page.getByTestId("permit2-needed").innerText()).toMatch(/Permit2/);
      // By default the allowance asked is the ceiling, and the card says what it lets Permit2 do.
      expect(await page.getByTestId("permit2-allowance-input").inputValue()).toBe("0.1");
      expect(await page.getByTestId("permit2-allowance-words").innerText()).toContain(
        "Permit2 may move up to 0.1 USDC from this wallet, for any app whose Permit2 signature you give, until you change it.",
      );
      expect(await page.getByTestId("permit2-button").innerText()).toBe("Allow Permit2 0.1 USDC");
      // No signature before the one-time approve.
      expect(await page.getByTestId("approve-button").isDisabled()).toBe(true);
      await screenshot(page, "metered-approval-card");

      await page.getByTestId("permit2-button").click();
      await expect.poll(() => page.getByTestId("approve-button").isEnabled(), { timeout: 20_000 }).toBe(true);
      expect(await page.getByTestId("permit2-needed").count()).toBe(0);
      // The approve the wallet sent: the ceiling, not an unlimited allowance.
      expect(await permit2Allowance()).toBe(CEILING);
      expect(await page.getByTestId("approve-button").innerText()).toBe("Approve up to 0.1 USDC");

      await page.getByTestId("approve-button").click();
      await expect.poll(() => page.getByTestId("payment-card").getAttribute("data-status"), { timeout: 20_000 }).toBe("delivered");
      await waitForIdle(page);
      expect(await card.innerText()).toContain("You approved up to 0.1 USDC to Row meter: 0.0015 USDC was taken and the data delivered.");

      // What went back: the permit with its owner, signed by the demo user through the node.
      const [, second] = await recordedRequests(page);
      const decoded = decodePaymentSignatureHeader(second?.headers["payment-signature"] ?? "");
      expect(decoded?.payload.authorization).toEqual({ from: userAddress, ...approval.typedData.message });
      const recovered = await recoverTypedDataAddress({ ...walletTypedDataOf(approval), signature: decoded?.payload.signature as `0x${string}` });
      expect(recovered.toLowerCase()).toBe(userAddress.toLowerCase());
      await screenshot(page, "metered-approval-done");
    } finally {
      await context.close();
    }
  });

  it("approves Permit2 for the larger allowance the person types, and refuses one below the ceiling or with more than 6 decimals", async () => {
    const { page, context } = await openPage(browser);
    try {
      await setPermit2Allowance(0n);
      const approval = meteredApproval();
      await installFakeChat(page, [
        streamResponse([
          payment("quoted", quote),
          payment("awaiting-approval", { ...quote, approval }),
          finishEvent({
            finishReason: "stop",
            txHash: null,
            payments: [{ id: "pay_rows_1", status: "awaiting-approval", txHash: null }],
            pendingApproval: { id: "pay_rows_1", approval },
          }),
        ]),
      ]);
      await openMeteredCard(page);
      const input = page.getByTestId("permit2-allowance-input");
      const words = page.getByTestId("permit2-allowance-words");
      const allow = page.getByTestId("permit2-button");

      await input.fill("0.09");
      await expect.poll(() => words.innerText()).toMatch(/needs at least 0\.1 USDC/);
      expect(await allow.isDisabled()).toBe(true);
      await input.fill("2.0000001");
      await expect.poll(() => words.innerText()).toMatch(/6 decimals/);
      expect(await allow.isDisabled()).toBe(true);

      await input.fill("2.5");
      await expect
        .poll(() => words.innerText())
        .toContain("Permit2 may move up to 2.5 USDC from this wallet, for any app whose Permit2 signature you give, until you change it.");
      expect(await allow.innerText()).toBe("Allow Permit2 2.5 USDC");
      await screenshot(page, "metered-approval-allowance");
      await allow.click();
      await expect.poll(() => page.getByTestId("approve-button").isEnabled(), { timeout: 20_000 }).toBe(true);
      expect(await permit2Allowance()).toBe(2_500_000n);
    } finally {
      await context.close();
    }
  });
});
