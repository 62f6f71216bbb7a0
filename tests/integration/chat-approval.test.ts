/**
 * The two-request approval flow with the user's wallet: request 1 freezes a quote and asks for
 * a signature; request 2 carries PAYMENT-SIGNATURE and pays. Anything tampered, expired or
 * signed by someone else is 402 and moves no money.
 */
import { parseUnits } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ApprovalRequest } from "../../lib/stream";
import { approvalSigner, walletTypedDataOf } from "../../lib/x402/approval-typed-data";
import { encodePaymentSignatureHeader } from "../../lib/x402/payment-signature-header";
import { startChatHarness, type ChatHarness } from "../support/chat-harness";

let harness: ChatHarness;
let user: `0x${string}`;
const question = { messages: [{ role: "user", content: "What's the weather in Lisbon?" }] };

beforeAll(async () => {
  harness = await startChatHarness();
  user = harness.devnet.accounts.user.address as `0x${string}`;
});

afterAll(async () => {
  await harness?.stop();
});

async function requestQuote(): Promise<ApprovalRequest> {
  const first = await harness.chat({ ...question, walletAddress: user });
  expect(first.response.status).toBe(200);
  const waiting = first.payments.find((payment) => payment.status === "awaiting-approval");
  expect(waiting?.approval).toBeDefined();
  expect(first.finish).toMatchObject({ finishReason: "stop", txHash: null, pendingApproval: { id: waiting!.id } });
  expect(first.payments.some((payment) => payment.status === "signing" || payment.status === "confirmed")).toBe(false);
  return waiting!.approval!;
}

async function sign(approval: ApprovalRequest, privateKey: `0x${string}`) {
  return privateKeyToAccount(privateKey).signTypedData(walletTypedDataOf(approval));
}

type HeaderPayload = {
  resource: { url: string; contentType?: string };
  accepted: { payTo: string };
  payload: { authorization: { to: string; value: string; nonce: string } };
};

function reencode(header: string, change: (payload: HeaderPayload) => void): string {
  const payload = JSON.parse(Buffer.from(header, "base64").toString("utf8")) as HeaderPayload;
  change(payload);
  return Buffer.from(JSON.stringify(payload)).toString("base64");
}

describe("approval with the user's wallet", () => {
  it("quotes without paying, then pays exactly the quote from the user's wallet after the signature", async () => {
    const before = await harness.usdcBalance(user);
    const approval = await requestQuote();
    expect(approval).toMatchObject({ amount: "0.01", payTo: harness.devnet.accounts.merchant.address, x402Version: 2 });
    expect(approvalSigner(approval)).toBe(user);
    expect(approval.scheme).toBe("exact");
    expect(approval.expiresAt).toBeGreaterThan(Date.now() / 1000);
    expect(await harness.usdcBalance(user)).toBe(before);

    const header = encodePaymentSignatureHeader(approval, await sign(approval, harness.devnet.accounts.user.privateKey as `0x${string}`));
    const second = await harness.chat({ ...question, walletAddress: user }, { headers: { "PAYMENT-SIGNATURE": header } });
    expect(second.response.status).toBe(200);
    const statuses = second.payments.map((payment) => payment.status);
    expect(statuses).toEqual(["quoted", "verifying", "confirmed", "delivered"]);
    expect(second.finish?.finishReason).toBe("payment-complete");
    expect(second.finish?.txHash).toMatch(/^0x[0-9a-f]{64}$/);
    expect(second.text).toContain("Lisbon");
    expect(await harness.usdcBalance(user)).toBe(before - parseUnits("0.01", 6));

    // The same signature again never pays twice: the retry gets the recorded outcome.
    const replay = await harness.chat({ ...question, walletAddress: user }, { headers: { "PAYMENT-SIGNATURE": header } });
    expect(replay.response.status).toBe(200);
    expect(replay.payments.map((payment) => payment.status)).toEqual(["delivered"]);
    expect(replay.payments[0]?.message).toMatch(/not a new payment/);
    expect(replay.finish).toMatchObject({ finishReason: "payment-complete", txHash: second.finish?.txHash });
    expect(replay.text).toContain("Lisbon");
    expect(await harness.usdcBalance(user)).toBe(before - parseUnits("0.01", 6));
  });

  it("a used signature sent with another request body is 409: nothing is paid or streamed", async () => {
    const approval = await requestQuote();
    const header = encodePaymentSignatureHeader(approval, await sign(approval, harness.devnet.accounts.user.privateKey as `0x${string}`));
    const paid = await harness.chat({ ...question, walletAddress: user }, { headers: { "PAYMENT-SIGNATURE": header } });
    expect(paid.finish?.finishReason).toBe("payment-complete");
    const before = await harness.usdcBalance(user);

    const other = { messages: [{ role: "user", content: "What's the weather in Tokyo?" }], walletAddress: user };
    const reused = await harness.chat(other, { headers: { "PAYMENT-SIGNATURE": header } });
    expect(reused.response.status).toBe(409);
    expect(reused.response.headers.get("content-type")).toBe("application/problem+json");
    expect(await reused.response.json()).toMatchObject({ code: "conflict:signature_reused" });
    expect(reused.events).toEqual([]);
    expect(await harness.usdcBalance(user)).toBe(before);

    // The original request again is a retry, not a conflict.
    const retry = await harness.chat({ ...question, walletAddress: user }, { headers: { "PAYMENT-SIGNATURE": header } });
    expect(retry.response.status).toBe(200);
    expect(retry.finish?.txHash).toBe(paid.finish?.txHash);
  });

  describe("refused with 402, moving no money", () => {
    let approval: ApprovalRequest;
    let header: string;
    let before: bigint;

    beforeAll(async () => {
      approval = await requestQuote();
      header = encodePaymentSignatureHeader(approval, await sign(approval, harness.devnet.accounts.user.privateKey as `0x${string}`));
      before = await harness.usdcBalance(user);
    });

    async function expect402(value: string, code: string, walletAddress = user) {
      const result = await harness.chat({ ...question, walletAddress }, { headers: { "PAYMENT-SIGNATURE": value } });
      expect(result.response.status).toBe(402);
      expect(result.response.headers.get("content-type")).toBe("application/problem+json");
      expect((await result.response.json()).code).toBe(code);
      expect(await harness.usdcBalance(user)).toBe(before);
    }

    it("a tampered amount", () =>
      expect402(
        reencode(header, (payload) => (payload.payload.authorization.value = "1")),
        "payment_required:mismatch",
      ));

    it("a tampered payee", () =>
      expect402(
        reencode(header, (payload) => {
          payload.payload.authorization.to = harness.devnet.accounts.agent.address;
          payload.accepted.payTo = harness.devnet.accounts.agent.address;
        }),
        "payment_required:mismatch",
      ));

    it("a tampered nonce", () =>
      expect402(
        reencode(header, (payload) => (payload.payload.authorization.nonce = `0x${"11".repeat(32)}`)),
        "payment_required:mismatch",
      ));

    it("a tampered resource", () =>
      expect402(
        reencode(header, (payload) => (payload.resource.url = `${payload.resource.url}&city=Porto`)),
        "payment_required:mismatch",
      ));

    // The quote was for a GET without a body: a content type names a body nobody approved.
    it("a content type added to a quote without a body", () =>
      expect402(
        reencode(header, (payload) => (payload.resource.contentType = "application/json")),
        "payment_required:mismatch",
      ));

    it("another wallet's signature", async () => {
      const other = encodePaymentSignatureHeader(approval, await sign(approval, harness.devnet.accounts.agent.privateKey as `0x${string}`));
      await expect402(other, "payment_required:invalid_signature");
    });

    it("a signature sent for another walletAddress", () =>
      expect402(header, "payment_required:mismatch", harness.devnet.accounts.agent.address as `0x${string}`));

    it("an expired quote", async () => {
      const realNow = harness.deps.now;
      harness.deps.now = () => (approval.expiresAt + 1) * 1000;
      try {
        await expect402(header, "payment_required:expired");
      } finally {
        harness.deps.now = realNow;
      }
    });
  });
});
