/**
 * Signed offers and receipts (x402 `offer-receipt` extension) against the real local world:
 * the demo services sign with the payee's key, the agent verifies each receipt against what it
 * paid, and the verdict reaches `p:`, `d:`, the journal (the embedded database, migration 0005)
 * and the payment history's JSON and CSV. A receipt signed by another key is reported, unverified.
 */
import { decodePaymentRequiredHeader } from "@x402/core/http";
import { verifyOfferSignatureEIP712, verifyReceiptSignatureEIP712, type EIP712SignedOffer, type EIP712SignedReceipt } from "@x402/extensions/offer-receipt";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { toPaymentView } from "../../lib/payments/payment-view";
import { paymentsCsv } from "../../lib/payments/payments-csv";
import { createDatabaseStore, lazyDatabase } from "../../lib/store/create-database-store";
import { findSequenceViolations, type PaymentEvent } from "../../lib/stream";
import { parseCsv } from "../support/parse-csv";
import { startChatHarness, userMessage, type ChatHarness, type ChatResult } from "../support/chat-harness";

let harness: ChatHarness;
let merchant: `0x${string}`;

beforeAll(async () => {
  harness = await startChatHarness({ store: createDatabaseStore(lazyDatabase({ kind: "pglite" })) });
  merchant = harness.devnet.accounts.merchant.address as `0x${string}`;
});

afterEach(async () => {
  await harness.devnet.faults.reset();
});

afterAll(async () => {
  await harness?.stop();
});

function deliveredOf(result: ChatResult): PaymentEvent {
  expect(result.items.filter((item) => item.kind === "malformed")).toEqual([]);
  expect(findSequenceViolations(result.events)).toEqual([]);
  const delivered = result.payments.find((payment) => payment.id.startsWith("pay_") && payment.status === "delivered");
  if (!delivered) throw new Error(`no delivered payment: ${JSON.stringify(result.payments.at(-1))}`);
  return delivered;
}

function serviceUrl(name: string): string {
  const service = harness.devnet.services.find((candidate) => candidate.name === name);
  if (!service) throw new Error(`no service ${name}`);
  return service.url;
}

describe("signed offers and receipts", () => {
  it("a 402 carries an offer per option, signed by the payee", async () => {
    const response = await fetch(`${serviceUrl("weather")}?city=Lisbon`);
    expect(response.status).toBe(402);
    const required = decodePaymentRequiredHeader(response.headers.get("PAYMENT-REQUIRED") ?? "");
    const offers = (required.extensions?.["offer-receipt"] as { info: { offers: EIP712SignedOffer[] } }).info.offers;
    expect(offers).toHaveLength(required.accepts.length);
    const { signer, payload } = await verifyOfferSignatureEIP712(offers[0]!);
    expect(signer).toBe(merchant);
    expect(payload).toMatchObject({ payTo: merchant, amount: required.accepts[0]!.amount, network: harness.devnet.network });
  });

  it("a purchase returns a verified receipt in p:, d:, the journal and the history", async () => {
    const result = await harness.chat(userMessage("What's the weather in Lisbon?"));
    expect(result.finish?.finishReason).toBe("payment-complete");
    const delivered = deliveredOf(result);
    const txHash = result.finish?.txHash;
    const expected = { format: "eip712", signer: merchant, verified: true, transaction: txHash };
    expect(delivered.receipt).toMatchObject(expected);
    expect(delivered.receipt?.reason).toBeUndefined();
    expect(Math.abs((delivered.receipt?.issuedAt ?? 0) - Date.now() / 1000)).toBeLessThan(120);
    expect(result.finish?.payments.find((payment) => payment.id === delivered.id)?.receipt).toEqual(delivered.receipt);
    // Only the delivered event carries it: it is the settlement's receipt.
    expect(result.payments.filter((payment) => payment.receipt)).toHaveLength(1);

    // The journal keeps the verdict and the receipt itself, which anyone can verify again.
    const record = await harness.deps.store.journal.get(delivered.id);
    expect(record?.receipt).toMatchObject(expected);
    const signed = record?.receipt?.signed as EIP712SignedReceipt;
    expect(signed).toMatchObject({ format: "eip712", payload: { version: 1, network: harness.devnet.network, transaction: txHash } });
    expect(signed.payload.payer.toLowerCase()).toBe(harness.devnet.accounts.agent.address.toLowerCase());
    expect((await verifyReceiptSignatureEIP712(signed)).signer).toBe(merchant);

    // GET /api/payments shows it as JSON and in the CSV's three receipt columns.
    const view = toPaymentView(record!, harness.deps.network);
    expect(view.receipt).toMatchObject({ format: "eip712", signer: merchant, verified: true, reason: null, transaction: txHash, signed });
    const [header, row] = parseCsv(paymentsCsv([view]));
    expect(header?.slice(-3)).toEqual(["receiptSigner", "receiptVerified", "receiptReason"]);
    expect(row?.slice(-3)).toEqual([merchant, "true", ""]);
  });

  it("a receipt signed by another key is reported unverified, and still recorded", async () => {
    await harness.devnet.faults.set({ wrongReceiptSigner: ["weather"] });
    const result = await harness.chat(userMessage("What's the weather in Porto?"));
    // The payment itself went through: the chain proved it, the data came; only the receipt fails.
    expect(result.finish?.finishReason).toBe("payment-complete");
    const delivered = deliveredOf(result);
    expect(delivered.receipt).toMatchObject({ format: "eip712", verified: false });
    expect(delivered.receipt?.signer).toMatch(/^0x[0-9a-fA-F]{40}$/);
    expect(delivered.receipt?.signer).not.toBe(merchant);
    expect(delivered.receipt?.reason).toBe(`signed by ${delivered.receipt?.signer}, not by the payee ${merchant}`);
    expect(result.finish?.payments.find((payment) => payment.id === delivered.id)?.receipt).toEqual(delivered.receipt);
    const record = await harness.deps.store.journal.get(delivered.id);
    expect(record?.receipt).toMatchObject({ verified: false, reason: delivered.receipt?.reason });
    expect(toPaymentView(record!, harness.deps.network).receipt?.verified).toBe(false);
  });

  it("a service that sends no receipt (the x402 v1 one here) is simply 'no receipt'", async () => {
    const result = await harness.chat(userMessage("Show me EUR exchange rates"));
    expect(result.finish?.finishReason).toBe("payment-complete");
    const delivered = deliveredOf(result);
    expect(delivered.receipt).toBeUndefined();
    expect((await harness.deps.store.journal.get(delivered.id))?.receipt).toBeUndefined();
  });
});
