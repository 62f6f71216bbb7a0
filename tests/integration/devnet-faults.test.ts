/**
 * Every fault switch of the local world, exercised through the official x402 client.
 */
import { decodePaymentRequiredHeader, decodePaymentResponseHeader } from "@x402/core/http";
import type { Network } from "@x402/core/types";
import { ExactEvmScheme } from "@x402/evm/exact/client";
import { wrapFetchWithPayment, x402Client } from "@x402/fetch";
import { createPublicClient, erc20Abi, http, type Address, type Hex } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { startDevnet, type Devnet } from "../../devnet";
import { timeoutSignal } from "../../lib/timeout";

/** Short, so the "settlement times out" path takes a second, not the default twenty. */
const SETTLE_TIMEOUT_MS = 400;

let devnet: Devnet;
let chain: ReturnType<typeof createPublicClient>;

function balanceOf(address: string): Promise<bigint> {
  return chain.readContract({ address: devnet.usdc as Address, abi: erc20Abi, functionName: "balanceOf", args: [address as Address] });
}

function service(name: string) {
  const found = devnet.services.find((entry) => entry.name === name);
  if (!found) throw new Error(`no service ${name}`);
  return { ...found, callUrl: `${found.url}?${new URLSearchParams(found.queryParams)}` };
}

/**
 * The official paying client. With `giveUp`, its requests are aborted by that signal itself:
 * @x402/fetch hands its inner fetch Requests it built, and a Request follows the signal it was
 * built with only through a weak reference (lib/net/watch-caller.ts), so after a garbage
 * collection the caller's abort would not reach the request. (GET only: no body is passed on.)
 */
function payingFetch(giveUp?: AbortSignal) {
  const account = privateKeyToAccount(devnet.accounts.agent.privateKey as Hex);
  const client = new x402Client()
    .register(devnet.network as Network, new ExactEvmScheme(account))
    .setSpendControls({ allowedAssets: [{ network: devnet.network as Network, asset: devnet.usdc }] });
  if (!giveUp) return wrapFetchWithPayment(fetch, client);
  return wrapFetchWithPayment((input, init) => {
    const request = new Request(input, init);
    return fetch(request.url, { method: request.method, headers: request.headers, signal: giveUp });
  }, client);
}

async function balances() {
  return Promise.all([balanceOf(devnet.accounts.agent.address), balanceOf(devnet.accounts.merchant.address)]);
}

beforeAll(async () => {
  devnet = await startDevnet({ settleTimeoutMs: SETTLE_TIMEOUT_MS, facilitatorTimeoutMs: 5_000, slowDelayMs: 0 });
  chain = createPublicClient({ transport: http(devnet.rpcUrl) });
});

afterEach(async () => {
  await devnet.faults.reset();
});

afterAll(async () => {
  await devnet?.stop();
});

describe("facilitator faults", () => {
  it("verifyFails: the payment is refused with the fault's reason and nothing moves", async () => {
    await devnet.faults.set({ verifyFails: true });
    const before = await balances();
    const response = await payingFetch()(service("weather").callUrl);
    expect(response.status).toBe(402);
    expect(decodePaymentRequiredHeader(response.headers.get("payment-required") ?? "").error).toBe("devnet_fault_verify_failed");
    expect(await balances()).toEqual(before);
  });

  it("settleFails: the service answers 402 with a failed settlement and nothing moves", async () => {
    await devnet.faults.set({ settleFails: true });
    const before = await balances();
    const response = await payingFetch()(service("weather").callUrl);
    expect(response.status).toBe(402);
    const settlement = decodePaymentResponseHeader(response.headers.get("payment-response") ?? "");
    expect(settlement).toMatchObject({ success: false, errorReason: "devnet_fault_settle_failed", transaction: "" });
    expect(await balances()).toEqual(before);
  });

  it("settleTimesOut: the answer is settlement_pending with the hash, and the transfer still mines", async () => {
    await devnet.faults.set({ settleTimesOut: true });
    const weather = service("weather");
    const [payerBefore, payeeBefore] = await balances();
    const response = await payingFetch()(weather.callUrl);
    expect(response.status).toBe(402);
    const settlement = decodePaymentResponseHeader(response.headers.get("payment-response") ?? "");
    expect(settlement.success).toBe(false);
    expect(settlement.errorReason).toBe("settlement_pending");
    expect(settlement.transaction).toMatch(/^0x[0-9a-f]{64}$/);
    const receipt = await chain.waitForTransactionReceipt({ hash: settlement.transaction as Hex, timeout: 5_000 });
    expect(receipt.status).toBe("success");
    const price = BigInt(weather.amount ?? "0");
    expect(await balances()).toEqual([payerBefore - price, payeeBefore + price]);
  });

  it("facilitatorHangs: nothing answers until the switch is released, then held requests complete", async () => {
    await devnet.faults.set({ facilitatorHangs: true });
    // The facilitator itself holds the request.
    const held = fetch(`${devnet.facilitatorUrl}/supported`);
    const timedOut = await fetch(`${devnet.facilitatorUrl}/supported`, { signal: giveUpAfter(300) }).then(
      () => false,
      () => true,
    );
    expect(timedOut).toBe(true);

    // A paying client gives up; the service never got to verify, so nothing is spent.
    const before = await balances();
    const callerGoneBefore = devnet.paidRequests.count("caller-gone");
    const gaveUp = await payingFetch(giveUpAfter(500))(service("weather").callUrl).then(
      () => false,
      () => true,
    );
    expect(gaveUp).toBe(true);

    await devnet.faults.set({ facilitatorHangs: false });
    expect((await held).status).toBe(200);
    // The released verify finds the caller gone, so the service does not settle: waited for
    // until the service has ended that request, then nothing can settle it any more.
    await expect.poll(() => devnet.paidRequests.count("caller-gone"), { timeout: 5_000, interval: 20 }).toBe(callerGoneBefore + 1);
    expect(await balances()).toEqual(before);
  });
});

describe("service faults", () => {
  it("failingServices: 500 after verification, and the payment is not settled", async () => {
    await devnet.faults.set({ failingServices: ["news-headlines"] });
    const before = await balances();
    const response = await payingFetch()(service("news-headlines").callUrl);
    expect(response.status).toBe(500);
    expect(response.headers.get("payment-response")).toBeNull();
    expect(await balances()).toEqual(before);
    // Other services are unaffected.
    expect((await payingFetch()(service("crypto-price").callUrl)).status).toBe(200);
  });

  it("offlineServices: the port refuses connections until the service is back", async () => {
    const weather = service("weather");
    await devnet.faults.set({ offlineServices: ["weather"] });
    await expect(fetch(weather.callUrl)).rejects.toThrow();
    await devnet.faults.set({ offlineServices: [] });
    expect((await fetch(weather.callUrl)).status).toBe(402);
    expect((await payingFetch()(weather.callUrl)).status).toBe(200);
  });

  it("the listed offline service refuses connections", async () => {
    const translate = service("translate");
    expect(translate.offline).toBe(true);
    await expect(fetch(translate.callUrl)).rejects.toThrow();
  });

  it("refuses unknown service names", async () => {
    await expect(devnet.faults.set({ failingServices: ["no-such-service"] })).rejects.toThrow(/no service/);
  });
});

describe("fault switches over HTTP", () => {
  it("reads, changes and resets the switches at /_devnet/faults", async () => {
    const faultsUrl = devnet.faultsUrl ?? "";
    const changed = await fetch(faultsUrl, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ verifyFails: true }) });
    expect(changed.status).toBe(200);
    expect(devnet.faults.get().verifyFails).toBe(true);
    expect(((await (await fetch(faultsUrl)).json()) as { verifyFails: boolean }).verifyFails).toBe(true);

    const invalid = await fetch(faultsUrl, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ verifyFails: "yes" }) });
    expect(invalid.status).toBe(400);

    const reset = await fetch(`${faultsUrl}/reset`, { method: "POST" });
    expect(reset.status).toBe(200);
    expect(devnet.faults.get().verifyFails).toBe(false);
  });
});

/** A signal that aborts after `ms`, its timer held until then (lib/timeout.ts). */
function giveUpAfter(ms: number): AbortSignal {
  return timeoutSignal(ms).signal;
}
