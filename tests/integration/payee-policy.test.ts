/**
 * The operator's payee policy and first-payment flags, against the local world: a denied payee
 * is refused before anything is signed (the chain shows nothing moved), and a payee the wallet
 * never paid before is flagged on the quote, once.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ANVIL_MNEMONIC, devAccounts } from "../../devnet/chain/dev-accounts";
import { startChatHarness, userMessage, type ChatHarness } from "../support/chat-harness";

const merchant = devAccounts(ANVIL_MNEMONIC).merchant.address;

describe("a payee the operator denied", () => {
  let harness: ChatHarness;
  beforeAll(async () => {
    harness = await startChatHarness({ env: { PAYEES_DENIED: merchant.toLowerCase() } });
  });
  afterAll(async () => {
    await harness?.stop();
  });

  it("is refused before anything is signed, naming the policy, and nothing moves", async () => {
    const agent = harness.devnet.accounts.agent.address as `0x${string}`;
    const before = await harness.usdcBalance(agent);
    const result = await harness.chat(userMessage("What's the weather in Lisbon?"));
    expect(result.finish).toMatchObject({ finishReason: "payment-failed", txHash: null });
    const statuses = result.payments.filter((payment) => payment.id.startsWith("pay_")).map((payment) => payment.status);
    expect(statuses).toEqual(["failed"]);
    const failed = result.payments.find((payment) => payment.status === "failed");
    expect(failed?.message).toContain(`the operator's policy does not allow paying the payee ${merchant}; nothing was signed`);
    expect(await harness.usdcBalance(agent)).toBe(before);
  });
});

describe("a payee the wallet never paid", () => {
  let harness: ChatHarness;
  beforeAll(async () => {
    harness = await startChatHarness();
  });
  afterAll(async () => {
    await harness?.stop();
  });

  it("is flagged on the first payment's quote and not on the next", async () => {
    const first = await harness.chat(userMessage("What's the weather in Lisbon?"));
    expect(first.finish).toMatchObject({ finishReason: "payment-complete" });
    const firstQuote = first.payments.find((payment) => payment.status === "quoted");
    expect(firstQuote).toMatchObject({ newPayee: true, payTo: merchant });
    expect(firstQuote?.message).toMatch(/never paid this payee before/);

    const second = await harness.chat(userMessage("What's the weather in Porto?"));
    expect(second.finish).toMatchObject({ finishReason: "payment-complete" });
    const secondQuote = second.payments.find((payment) => payment.status === "quoted");
    expect(secondQuote?.payTo).toBe(merchant);
    expect(secondQuote).not.toHaveProperty("newPayee");
  });
});
