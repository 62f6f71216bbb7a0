/**
 * A person's wallet paying a metered (`upto`) service through the two-request approval flow, on
 * the local world: request 1 asks for a Permit2 permit over the ceiling; request 2 carries the
 * user's signature, and the chain, the stream and the user's daily budget count what the call
 * used, below the ceiling. A wallet whose Permit2 allowance is short is asked with the approval
 * to allow the ceiling, and nothing is sent or moved while the allowance is below it.
 */
import { createPublicClient, createWalletClient, erc20Abi, http, parseEventLogs, type Address, type Hex } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Devnet } from "../../devnet";
import type { ApprovalRequest, PaymentEvent } from "../../lib/stream";
import { approvalSigner, walletTypedDataOf } from "../../lib/x402/approval-typed-data";
import { encodePaymentSignatureHeader } from "../../lib/x402/payment-signature-header";
import { PERMIT2 } from "../../lib/x402/upto-permit2";
import { createBaseModel } from "../../lib/agent/model/create-chat-model";
import { startChatHarness, userMessage, type ChatHarness } from "../support/chat-harness";
import { startFakeOpenAiServer, type FakeOpenAiServer } from "../support/fake-openai-server";
import { callUserNamedUrl } from "../support/scripted-replies";

let harness: ChatHarness;
let fake: FakeOpenAiServer;
let devnet: Devnet;
let chain: ReturnType<typeof createPublicClient>;

beforeAll(async () => {
  fake = await startFakeOpenAiServer((request) => callUserNamedUrl(request.messages));
  harness = await startChatHarness({ baseModel: createBaseModel({ apiKey: "test-key", baseUrl: fake.url, modelId: "gpt-test" }) });
  devnet = harness.devnet;
  chain = createPublicClient({ transport: http(devnet.rpcUrl) });
}, 120_000);

afterAll(async () => {
  await harness?.stop();
  await fake?.stop();
});

function rowMeter() {
  const found = devnet.services.find((service) => service.name === "row-meter");
  if (!found?.metering || found.scheme !== "upto" || !found.amount) throw new Error("the local world has no metered row-meter");
  return { url: found.url, ceiling: BigInt(found.amount), unitPrice: BigInt(found.metering.unitPrice) };
}

const usdc = (units: bigint) => (Number(units) / 1e6).toString();
const rowsQuestion = (rows: number) => userMessage(`Get ${rows} rows from ${rowMeter().url}?rows=${rows}&dataset=sales please.`);

async function requestQuote(wallet: `0x${string}`, rows: number): Promise<{ approval: ApprovalRequest; payments: PaymentEvent[] }> {
  const first = await harness.chat({ ...rowsQuestion(rows), walletAddress: wallet });
  expect(first.response.status).toBe(200);
  const waiting = first.payments.find((payment) => payment.status === "awaiting-approval");
  expect(waiting?.approval).toBeDefined();
  expect(first.finish).toMatchObject({ txHash: null, pendingApproval: { id: waiting!.id } });
  expect(first.payments.some((payment) => payment.status === "signing" || payment.status === "verifying" || payment.status === "confirmed")).toBe(false);
  return { approval: waiting!.approval!, payments: first.payments };
}

function pay(wallet: `0x${string}`, rows: number, approval: ApprovalRequest, signature: Hex) {
  return harness.chat(
    { ...rowsQuestion(rows), walletAddress: wallet },
    { headers: { "PAYMENT-SIGNATURE": encodePaymentSignatureHeader(approval, signature) } },
  );
}

/** The USDC a settlement moved from the payer, all of it to the merchant. */
async function transferred(txHash: Hex, from: string): Promise<bigint> {
  const receipt = await chain.getTransactionReceipt({ hash: txHash });
  const transfers = parseEventLogs({ abi: erc20Abi, eventName: "Transfer", logs: receipt.logs }).filter(
    (log) => log.address.toLowerCase() === devnet.usdc.toLowerCase() && log.args.from.toLowerCase() === from.toLowerCase(),
  );
  expect(transfers).toHaveLength(1);
  expect(transfers[0]!.args.to.toLowerCase()).toBe(devnet.accounts.merchant.address.toLowerCase());
  return transfers[0]!.args.value;
}

const baseUnits = (decimal: string | undefined) => BigInt(Math.round(Number(decimal) * 1e6));

describe("a person's wallet pays a metered service (upto)", () => {
  it("signs a Permit2 permit for the ceiling; the chain moves, and the daily budget counts, what 3 rows cost", async () => {
    const user = devnet.accounts.user.address as `0x${string}`;
    const meter = rowMeter();
    const before = await harness.usdcBalance(user);
    const spentBefore = await harness.deps.store.ledger.spentToday(user);

    const { approval, payments } = await requestQuote(user, 3);
    expect(approval).toMatchObject({
      scheme: "upto",
      amount: usdc(meter.ceiling),
      ceiling: usdc(meter.ceiling),
      payer: user,
      payTo: devnet.accounts.merchant.address,
      x402Version: 2,
    });
    expect(approval.metering).toMatchObject({ unitPrice: usdc(meter.unitPrice), unit: "row" });
    // The demo user approved Permit2 when the local world started: no one-time step to ask for.
    expect(approval.permit2Approval).toBeUndefined();
    expect(approval.typedData.primaryType).toBe("PermitWitnessTransferFrom");
    expect(approvalSigner(approval)).toBe(user);
    expect(payments.find((payment) => payment.status === "awaiting-approval")?.message).toMatch(/^Approve up to /);
    expect(await harness.usdcBalance(user)).toBe(before);

    const signature = await privateKeyToAccount(devnet.accounts.user.privateKey as Hex).signTypedData(walletTypedDataOf(approval));
    const second = await pay(user, 3, approval, signature);
    expect(second.response.status).toBe(200);
    expect(second.payments.map((payment) => payment.status)).toEqual(["quoted", "verifying", "confirmed", "delivered"]);
    expect(second.finish?.finishReason).toBe("payment-complete");
    const txHash = second.finish?.txHash as Hex;
    expect(txHash).toMatch(/^0x[0-9a-f]{64}$/);

    const actual = 3n * meter.unitPrice;
    expect(actual).toBeLessThan(meter.ceiling);
    // The chain: one transfer of the actual amount; nothing else left the wallet.
    expect(await transferred(txHash, user)).toBe(actual);
    expect(before - (await harness.usdcBalance(user))).toBe(actual);
    // The stream: quoted at the ceiling, delivered at the actual amount beside the ceiling.
    const quoted = second.payments.find((payment) => payment.status === "quoted")!;
    const delivered = second.payments.find((payment) => payment.status === "delivered")!;
    expect(quoted).toMatchObject({ amount: usdc(meter.ceiling), ceiling: usdc(meter.ceiling) });
    expect(baseUnits(delivered.amount)).toBe(actual);
    expect(delivered.ceiling).toBe(usdc(meter.ceiling));
    expect(delivered.settlementFlag).toBeUndefined();
    expect(baseUnits(second.finish?.payments.at(-1)?.amount)).toBe(actual);
    // The user's daily budget: the actual amount, and nothing of the ceiling left reserved.
    const spentAfter = await harness.deps.store.ledger.spentToday(user);
    expect(spentAfter.settled - spentBefore.settled).toBe(actual);
    expect(spentAfter.reserved).toBe(spentBefore.reserved);
  });

  it("a wallet that never approved Permit2 is asked to allow the ceiling, nothing moves while its allowance is below it, and exactly the ceiling pays", async () => {
    const meter = rowMeter();
    const owner = privateKeyToAccount(devnet.accounts.unfunded.privateKey as Hex);
    const wallet = owner.address;
    // Give the wallet USDC (from the demo user), but no Permit2 approval.
    const funder = createWalletClient({ account: privateKeyToAccount(devnet.accounts.user.privateKey as Hex), transport: http(devnet.rpcUrl) });
    const funding = await funder.writeContract({
      chain: null,
      address: devnet.usdc as Address,
      abi: erc20Abi,
      functionName: "transfer",
      args: [wallet, 1_000_000n],
    });
    await chain.waitForTransactionReceipt({ hash: funding });
    expect(await chain.readContract({ address: devnet.usdc as Address, abi: erc20Abi, functionName: "allowance", args: [wallet, PERMIT2] })).toBe(0n);
    const before = await harness.usdcBalance(wallet);

    const { approval, payments } = await requestQuote(wallet, 2);
    // What the page's card asks the wallet to allow: the ceiling, named by the server.
    expect(approval).toMatchObject({ scheme: "upto", payer: wallet, permit2Approval: { spender: PERMIT2, token: devnet.usdc, amount: usdc(meter.ceiling) } });
    expect(payments.find((payment) => payment.status === "awaiting-approval")?.message).toMatch(/Permit2/);

    // Signed anyway, with an allowance one base unit short of the ceiling: refused before the service hears of it.
    const approver = createWalletClient({ account: owner, transport: http(devnet.rpcUrl) });
    const allow = async (amount: bigint) => {
      const hash = await approver.writeContract({
        chain: null,
        address: devnet.usdc as Address,
        abi: erc20Abi,
        functionName: "approve",
        args: [PERMIT2, amount],
      });
      await chain.waitForTransactionReceipt({ hash });
    };
    await allow(meter.ceiling - 1n);
    const early = await pay(wallet, 2, approval, await owner.signTypedData(walletTypedDataOf(approval)));
    expect(early.response.status).toBe(200);
    expect(early.payments.at(-1)).toMatchObject({ status: "failed", reason: "payment-failed" });
    expect(early.payments.at(-1)?.message).toMatch(/Permit2.*not sent to the service/);
    expect(early.payments.some((payment) => payment.status === "verifying")).toBe(false);
    expect(await harness.usdcBalance(wallet)).toBe(before);
    expect((await harness.deps.store.ledger.spentToday(wallet)).reserved).toBe(0n);

    // The approve the page's card sends by default: exactly the ceiling.
    await allow(meter.ceiling);

    // A fresh quote no longer asks for it, and pays what two rows cost.
    const fresh = await requestQuote(wallet, 2);
    expect(fresh.approval.permit2Approval).toBeUndefined();
    const paid = await pay(wallet, 2, fresh.approval, await owner.signTypedData(walletTypedDataOf(fresh.approval)));
    expect(paid.finish?.finishReason).toBe("payment-complete");
    expect(await transferred(paid.finish?.txHash as Hex, wallet)).toBe(2n * meter.unitPrice);
    expect(before - (await harness.usdcBalance(wallet))).toBe(2n * meter.unitPrice);
    // Permit2 spent that from the allowance: the next metered quote asks again.
    const next = await requestQuote(wallet, 2);
    expect(next.approval.permit2Approval).toMatchObject({ amount: usdc(meter.ceiling) });
  });
});
