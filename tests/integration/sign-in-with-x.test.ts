/**
 * "Pay once, use again" with the x402 sign-in-with-x extension, end to end on the local world:
 * the Devnet Archive's 402 declares SIWX; the agent pays for a document once, and a later
 * request for the same document is served after a sign-in, with no second payment. The chain
 * is the judge: balances and Transfer logs to the payee.
 */
import { decodePaymentRequiredHeader } from "@x402/core/http";
import { SIGN_IN_WITH_X, wrapFetchWithSIWx } from "@x402/extensions/sign-in-with-x";
import { createPublicClient, getAddress, http, parseAbiItem, type Address } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { encodeSignInWithXHeader, SIGN_IN_WITH_X_HEADER } from "../../lib/client/sign-in-header";
import { findSequenceViolations } from "../../lib/stream";
import { encodePaymentSignatureHeader } from "../../lib/x402/payment-signature-header";
import { walletTypedDataOf } from "../../lib/x402/approval-typed-data";
import { startChatHarness, userMessage, type ChatHarness } from "../support/chat-harness";

const PRICE = 18_000n;
const transferEvent = parseAbiItem("event Transfer(address indexed from, address indexed to, uint256 value)");

let harness: ChatHarness;
let agent: Address;
let merchant: Address;
let archiveUrl: (id: string) => string;
let startBlock: bigint;

beforeAll(async () => {
  harness = await startChatHarness();
  agent = getAddress(harness.devnet.accounts.agent.address);
  merchant = getAddress(harness.devnet.accounts.merchant.address);
  const archive = harness.devnet.services.find((service) => service.name === "archive");
  if (!archive) throw new Error("no archive service in the local world");
  archiveUrl = (id) => archive.url.replace(":id", id);
  startBlock = await chain().getBlockNumber();
});

afterAll(async () => {
  await harness?.stop();
});

function chain() {
  return createPublicClient({ transport: http(harness.devnet.rpcUrl) });
}

/** Transfers of USDC to the payee since the test began, from `from` when given. */
async function transfersToPayee(from?: Address) {
  const logs = await chain().getLogs({
    address: harness.devnet.usdc as Address,
    event: transferEvent,
    args: { to: merchant, ...(from ? { from } : {}) },
    fromBlock: startBlock,
    toBlock: "latest",
  });
  return logs.map((log) => ({ from: log.args.from, value: log.args.value }));
}

describe("the Devnet Archive's 402", () => {
  it("declares sign-in-with-x with a challenge bound to its own origin and the local chain", async () => {
    const response = await fetch(archiveUrl("doc-1"));
    expect(response.status).toBe(402);
    const required = decodePaymentRequiredHeader(response.headers.get("payment-required") ?? "");
    const siwx = required.extensions?.[SIGN_IN_WITH_X] as { info: Record<string, unknown>; supportedChains: { chainId: string; type: string }[] };
    const origin = new URL(archiveUrl("doc-1"));
    expect(siwx.info).toMatchObject({ domain: origin.host, uri: archiveUrl("doc-1"), version: "1" });
    expect(siwx.info.nonce).toMatch(/^[0-9a-f]{32}$/);
    expect(siwx.info.expirationTime).toEqual(expect.any(String));
    expect(siwx.supportedChains).toEqual([{ chainId: `eip155:${harness.devnet.chainId}`, type: "eip191" }]);
  });
});

describe("pay once, use again (agent wallet)", () => {
  it("pays for a document once: one transfer to the payee", async () => {
    const [agentBefore, payeeBefore] = await Promise.all([harness.usdcBalance(agent), harness.usdcBalance(merchant)]);
    const first = await harness.chat(userMessage("Get archive document doc-7"));
    expect(first.response.status).toBe(200);
    expect(findSequenceViolations(first.events)).toEqual([]);
    expect(first.payments.map((payment) => payment.status)).toEqual(expect.arrayContaining(["quoted", "signing", "confirmed", "delivered"]));
    expect(first.payments.some((payment) => payment.access)).toBe(false);
    expect(first.finish).toMatchObject({ finishReason: "payment-complete", txHash: expect.stringMatching(/^0x[0-9a-f]{64}$/) });
    expect(await harness.usdcBalance(agent)).toBe(agentBefore - PRICE);
    expect(await harness.usdcBalance(merchant)).toBe(payeeBefore + PRICE);
    expect(await transfersToPayee(agent)).toEqual([{ from: agent, value: PRICE }]);
  });

  it("serves the same document again after a sign-in, with no payment and nothing on chain", async () => {
    const [agentBefore, payeeBefore] = await Promise.all([harness.usdcBalance(agent), harness.usdcBalance(merchant)]);
    const again = await harness.chat(userMessage("Show me archive document doc-7 once more, please"));
    expect(again.response.status).toBe(200);
    expect(findSequenceViolations(again.events)).toEqual([]);
    const served = again.payments.filter((payment) => !payment.id.startsWith("disc_"));
    expect(served).toHaveLength(1);
    expect(served[0]).toMatchObject({ status: "delivered", access: "sign-in-with-x", resource: archiveUrl("doc-7"), payer: agent });
    expect(served[0]?.amount).toBeUndefined();
    expect(served[0]?.txHash).toBeUndefined();
    // Not a payment: the request ends "stop", with no payment and no hash.
    expect(again.finish).toMatchObject({ finishReason: "stop", txHash: null, payments: [] });
    expect(again.text).toMatch(/nothing was paid now/i);
    expect(again.text).toContain("doc-7");
    expect(await harness.usdcBalance(agent)).toBe(agentBefore);
    expect(await harness.usdcBalance(merchant)).toBe(payeeBefore);
    expect(await transfersToPayee(agent)).toEqual([{ from: agent, value: PRICE }]);
  });

  it("still pays for a document this wallet never bought", async () => {
    const agentBefore = await harness.usdcBalance(agent);
    const other = await harness.chat(userMessage("Get archive document doc-8"));
    expect(other.finish?.finishReason).toBe("payment-complete");
    expect(other.payments.some((payment) => payment.access)).toBe(false);
    expect(await harness.usdcBalance(agent)).toBe(agentBefore - PRICE);
    expect(await transfersToPayee(agent)).toEqual([
      { from: agent, value: PRICE },
      { from: agent, value: PRICE },
    ]);
  });

  it("refuses a sign-in by a wallet that never paid: it gets the 402 again, and nothing moves", async () => {
    const user = privateKeyToAccount(harness.devnet.accounts.user.privateKey as `0x${string}`);
    const before = await transfersToPayee();
    const response = await wrapFetchWithSIWx(fetch, user)(archiveUrl("doc-7"));
    expect(response.status).toBe(402);
    expect(await transfersToPayee()).toEqual(before);
  });
});

describe("pay once, use again (the user's wallet: request 1 offers a sign-in, request 2 carries it)", () => {
  const question = (text: string) => ({ messages: [{ role: "user", content: text }], walletAddress: userAddress() });
  const userAddress = () => getAddress(harness.devnet.accounts.user.address);
  const userAccount = () => privateKeyToAccount(harness.devnet.accounts.user.privateKey as `0x${string}`);

  async function offer(text: string) {
    const first = await harness.chat(question(text));
    const waiting = first.payments.find((payment) => payment.status === "awaiting-approval");
    expect(waiting?.approval).toBeDefined();
    expect(waiting?.signIn).toBeDefined();
    return { approval: waiting!.approval!, signIn: waiting!.signIn! };
  }

  async function signedInHeader(text: string, signer = userAccount()) {
    const { approval, signIn } = await offer(text);
    expect(signIn.message).toContain(`${new URL(approval.resource).host} wants you to sign in with your Ethereum account:\n${userAddress()}`);
    const signature = await signer.signMessage({ message: signIn.message });
    return { approval, header: encodeSignInWithXHeader(signIn, approval, userAddress(), signature) };
  }

  it("a wallet that never paid: the sign-in is refused with nothing paid, then the approval pays once", async () => {
    const before = await transfersToPayee(userAddress());
    const { approval, header } = await signedInHeader("Get archive document doc-9");
    const refused = await harness.chat(question("Get archive document doc-9"), { headers: { [SIGN_IN_WITH_X_HEADER]: header } });
    expect(refused.response.status).toBe(200);
    expect(refused.payments.some((payment) => payment.access)).toBe(false);
    expect(refused.finish).toMatchObject({ txHash: null, payments: [] });
    expect(await transfersToPayee(userAddress())).toEqual(before);

    const signature = await userAccount().signTypedData(walletTypedDataOf(approval));
    const paid = await harness.chat(question("Get archive document doc-9"), {
      headers: { "PAYMENT-SIGNATURE": encodePaymentSignatureHeader(approval, signature) },
    });
    expect(paid.finish?.finishReason).toBe("payment-complete");
    expect(await transfersToPayee(userAddress())).toEqual([...before, { from: userAddress(), value: PRICE }]);
  });

  it("the wallet that paid: a new message is served after signing in, with no second payment", async () => {
    const before = await Promise.all([harness.usdcBalance(userAddress()), transfersToPayee()]);
    const { header } = await signedInHeader("Show me archive document doc-9 again");
    const served = await harness.chat(question("Show me archive document doc-9 again"), { headers: { [SIGN_IN_WITH_X_HEADER]: header } });
    expect(served.response.status).toBe(200);
    expect(findSequenceViolations(served.events)).toEqual([]);
    expect(served.payments).toEqual([
      expect.objectContaining({ status: "delivered", access: "sign-in-with-x", payer: userAddress(), resource: archiveUrl("doc-9") }),
    ]);
    expect(served.finish).toMatchObject({ finishReason: "stop", txHash: null, payments: [] });
    expect(served.text).toMatch(/nothing was paid now/i);
    expect(await Promise.all([harness.usdcBalance(userAddress()), transfersToPayee()])).toEqual(before);
  });

  it("refuses a sign-in signed by another wallet, swapped onto another request, or named for another wallet: 402, nothing sent", async () => {
    const stranger = privateKeyToAccount(harness.devnet.accounts.agent.privateKey as `0x${string}`);
    const before = await transfersToPayee();
    const { header: wrongSigner } = await signedInHeader("Show me archive document doc-9 again", stranger);
    expect((await harness.chat(question("Show me archive document doc-9 again"), { headers: { [SIGN_IN_WITH_X_HEADER]: wrongSigner } })).response.status).toBe(
      402,
    );

    const { header } = await signedInHeader("Show me archive document doc-9 again");
    const swapped = JSON.parse(Buffer.from(header, "base64").toString("utf8")) as { request: { url: string } };
    swapped.request.url = archiveUrl("doc-10");
    const reencoded = Buffer.from(JSON.stringify(swapped)).toString("base64");
    expect((await harness.chat(question("Show me archive document doc-9 again"), { headers: { [SIGN_IN_WITH_X_HEADER]: reencoded } })).response.status).toBe(
      402,
    );

    const otherWallet = { ...question("Show me archive document doc-9 again"), walletAddress: getAddress(harness.devnet.accounts.unfunded.address) };
    expect((await harness.chat(otherWallet, { headers: { [SIGN_IN_WITH_X_HEADER]: header } })).response.status).toBe(402);
    expect(await transfersToPayee()).toEqual(before);
  });
});
